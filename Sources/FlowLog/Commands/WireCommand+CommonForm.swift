import Deciding
import FlowLogBasics
import FlowLogStore
import FlowLogSystem

/// The wire form most lines take, read without a `JSONValue` tree.
///
/// A `send` of 100,000 commands spent a fifth of its CPU turning lines into trees of member
/// strings and values, then looking members up by name. Nearly every line is a flat object of
/// strings without escapes, integers and booleans, each member once: this reader takes such a
/// line straight to its envelope, comparing member names as bytes against the kinds' declared
/// names, and making a `String` only of the values it keeps.
///
/// It never answers anything else. A line it does not fully understand (an escape, a `null`, a
/// nested value or `meta`, a repeated member, a number with a fraction, an unknown type or
/// member, a missing field, trailing text) gets `nil`, and `decode` reads it the general way,
/// which accepts it or words the rejection. So the two can only differ if this one accepts a line
/// differently, which `WireCommandCommonFormTests` checks line by line against the general reader.
extension WireCommand {
    /// The envelope of a line in the common form; `nil` when the general reader must judge it.
    static func decodeCommonForm(_ line: UnsafeRawBufferPointer) -> CommandEnvelope? {
        withUnsafeTemporaryAllocation(of: FlatMember.self, capacity: FlatObject.capacity) { storage in
            guard var object = FlatObject(line, storage: storage) else { return nil }
            return object.envelope()
        }
    }

    /// The command kinds by the bytes of their type names, bucketed by length.
    fileprivate static let kindsByTypeLength: [[(name: [UInt8], kind: LogDecider.Command.Kind)]] = {
        var buckets = [[(name: [UInt8], kind: LogDecider.Command.Kind)]](repeating: [], count: 65)
        for info in LogDecider.Command.kinds.all where info.typeName.utf8.count < buckets.count {
            buckets[info.typeName.utf8.count].append((Array(info.typeName.utf8), info.kind))
        }
        return buckets
    }()
}

/// One member of a flat object: where its name and value are in the line.
private struct FlatMember {
    enum Value {
        case string(ascii: Bool)
        case integer(Int)
        case bool(Bool)
    }
    var name: Range<Int>
    /// A string's bytes between its quotes; empty for other values.
    var text: Range<Int>
    var value: Value
}

/// A line read as a flat object, and the reading of its members as a command's fields.
private struct FlatObject: PayloadDecoder, FieldVisitor {
    /// More members than any kind's fields and the envelope's together; 16 of them fit the stack
    /// (`withUnsafeTemporaryAllocation` goes to the heap past 1 KB, which cost a tenth of the reading).
    static let capacity = 16
    let line: UnsafeRawBufferPointer
    let members: UnsafeMutableBufferPointer<FlatMember>
    var count = 0
    /// A bit for each member read so far: every member must be read by the envelope or the kind.
    var read: UInt32 = 0

    /// Thrown inside a kind's decoding where the line leaves the common form.
    struct NotCommon: Error {}

    /// The members of a line that is one flat object; `nil` at anything else. Whitespace, strings
    /// (escapes and control bytes are the general reader's), integers and literals are read by
    /// `JSONLexer`, as the general reader reads them.
    init?(_ line: UnsafeRawBufferPointer, storage: UnsafeMutableBufferPointer<FlatMember>) {
        self.line = line
        members = storage
        var lexer = JSONLexer(line)
        guard lexer.peek() == UInt8(ascii: "{") else { return nil }
        lexer.offset += 1
        if lexer.peek() == UInt8(ascii: "}") { return nil }
        while true {
            guard count < Self.capacity else { return nil }
            // A repeated name is not looked for here: `take` reads the first of two, and the
            // other, never read, sends the line to the general reader.
            guard lexer.peek() == UInt8(ascii: "\""), let (name, _) = lexer.plainString() else { return nil }
            guard lexer.peek() == UInt8(ascii: ":") else { return nil }
            lexer.offset += 1
            guard let first = lexer.peek() else { return nil }
            let member: FlatMember
            switch first {
            case UInt8(ascii: "\""):
                guard let (text, ascii) = lexer.plainString() else { return nil }
                member = FlatMember(name: name, text: text, value: .string(ascii: ascii))
            case UInt8(ascii: "t"):
                guard lexer.literal("true") else { return nil }
                member = FlatMember(name: name, text: 0..<0, value: .bool(true))
            case UInt8(ascii: "f"):
                guard lexer.literal("false") else { return nil }
                member = FlatMember(name: name, text: 0..<0, value: .bool(false))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard let number = lexer.integer() else { return nil }
                member = FlatMember(name: name, text: 0..<0, value: .integer(number))
            default:
                return nil
            }
            members[count] = member
            count += 1
            switch lexer.peek() {
            case UInt8(ascii: ","): lexer.offset += 1
            case UInt8(ascii: "}"):
                lexer.offset += 1
                guard lexer.peek() == nil else { return nil }
                return
            default: return nil
            }
        }
    }

    /// The envelope, or nil where the general reader must judge the line.
    mutating func envelope() -> CommandEnvelope? {
        guard let typeName = take("type"), case .string = members[typeName].value,
            let kind = kind(typeName)
        else { return nil }
        do {
            let stream = try text("stream") ?? "default"
            let commandId = try text("id")
            var expectedVersion: Int?
            if let index = take("expectedVersion") {
                guard case .integer(let number) = members[index].value else { return nil }
                expectedVersion = number
            }
            let correlationId = try text("correlationId")
            let command = try LogDecider.Command.decode(kind, &self)
            // A member neither the envelope nor the kind reads (`meta` among them).
            guard read == (1 << UInt32(count)) - 1 else { return nil }
            return CommandEnvelope(
                stream: stream, commandId: commandId, expectedVersion: expectedVersion,
                correlationId: correlationId, command: command)
        } catch {
            return nil
        }
    }

    mutating func visit(_ field: Field, _ value: inout String) throws {
        guard let text = try text(field.name) else { throw NotCommon() }
        value = text
    }
    mutating func visit(_ field: Field, _ value: inout String?) throws { value = try text(field.name) }
    mutating func visit(_ field: Field, _ value: inout Int) throws {
        guard let number = try integer(field.name) else { throw NotCommon() }
        value = number
    }
    mutating func visit(_ field: Field, _ value: inout Int?) throws { value = try integer(field.name) }
    mutating func visit(_ field: Field, _ value: inout Bool) throws {
        guard let index = take(field.name), case .bool(let flag) = members[index].value else { throw NotCommon() }
        value = flag
    }

    /// A string member's value; nil when absent, `NotCommon` when it holds something else.
    private mutating func text(_ name: StaticString) throws(NotCommon) -> String? {
        guard let index = take(name) else { return nil }
        guard case .string(let ascii) = members[index].value else { throw NotCommon() }
        let bytes = UnsafeRawBufferPointer(rebasing: line[members[index].text])
        guard let text = JSONLexer.text(bytes, ascii: ascii) else { throw NotCommon() }
        return text
    }

    private mutating func integer(_ name: StaticString) throws(NotCommon) -> Int? {
        guard let index = take(name) else { return nil }
        guard case .integer(let number) = members[index].value else { throw NotCommon() }
        return number
    }

    /// The member named `name`, marked read.
    private mutating func take(_ name: StaticString) -> Int? {
        let bytes = UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        for index in 0..<count {
            let range = members[index].name
            // Length and first byte before `memcmp`: most names differ in one of them.
            if range.count == bytes.count, range.count > 0, line[range.lowerBound] == bytes[0],
                memcmp(line.baseAddress! + range.lowerBound, bytes.baseAddress!, bytes.count) == 0
            {
                read |= 1 << UInt32(index)
                return index
            }
        }
        return nil
    }

    private func kind(_ index: Int) -> LogDecider.Command.Kind? {
        let text = members[index].text
        let buckets = WireCommand.kindsByTypeLength
        guard text.count < buckets.count else { return nil }
        for candidate in buckets[text.count] where candidate.name.withUnsafeBytes({ Self.equal(line, text, $0) }) {
            return candidate.kind
        }
        return nil
    }

    private static func equal(_ line: UnsafeRawBufferPointer, _ a: Range<Int>, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (a.isEmpty || memcmp(line.baseAddress! + a.lowerBound, b.baseAddress!, a.count) == 0)
    }
}
