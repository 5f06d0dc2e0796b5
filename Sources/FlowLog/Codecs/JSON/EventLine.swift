import FlowDomain

/// An exported event's line, written into a buffer on the stack and appended to the writer in one
/// copy. `FlowJSON.writeEvent` appended each fragment, digit and hex pair to the writer's array,
/// paying its capacity and uniqueness checks each time: a fifth of an export's instructions.
///
/// Only for events whose text needs no escaping and fits the buffer (identifiers never need
/// escaping; names and reasons usually do not); `FlowJSON.writeEvent` writes the rest, and a test
/// requires the two to agree byte for byte.
enum EventLine {
    static let capacity = 1_024

    /// Appends `record`'s line to `json` and returns `true`, or leaves `json` alone and returns
    /// `false` when the event does not fit the fast path.
    static func append(_ record: RecordedEvent, to json: inout JSONWriter) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var line = LineBuffer(base: buffer.baseAddress!, capacity: capacity)
            guard write(record, into: &line) else { return false }
            json.appendSeparated(UnsafeBufferPointer(start: line.base, count: line.count))
            return true
        }
    }

    private static func write(_ record: RecordedEvent, into line: inout LineBuffer) -> Bool {
        line.raw(#"{"position":"#); line.int(record.position)
        line.raw(#","stream":""#); guard line.plain(record.stream) else { return false }
        line.raw(#"","version":"#); line.int(record.version)
        line.raw(#","eventId":""#); line.uuid(record.eventId)
        line.raw(#"","type":""#); line.typeName(of: record.event)
        line.raw(#"","actor":""#); line.raw(record.actor == .user ? "user" : "system")
        line.raw(#"","timestamp":""#); line.timestamp(record.timestamp)
        line.raw(#"","schemaVersion":"#); line.int(record.schemaVersion)
        if let correlation = record.correlationId {
            line.raw(#","correlationId":""#); guard line.plain(correlation) else { return false }; line.raw(#"""#)
        }
        if let causation = record.causationId {
            line.raw(#","causationId":""#); guard line.plain(causation) else { return false }; line.raw(#"""#)
        }
        line.raw(#","data":"#)
        var data = DataWriter(line: line)
        do { try record.event.visitPayload(&data) } catch { return false }
        line = data.line
        line.raw("}")
        return !line.overflowed
    }

    /// The `data` object, each declared field in order, `null` for an absent optional one.
    private struct DataWriter: EventPayloadVisitor, FieldVisitor {
        struct Unwritable: Error {}
        var line: LineBuffer
        private var first = true

        init(line: LineBuffer) { self.line = line }

        mutating func visit<Payload: EventPayload>(_ payload: Payload) throws {
            line.raw("{")
            var fields = payload
            try fields.visitFields(&self)
            line.raw("}")
        }

        private mutating func key(_ field: Field) {
            line.raw(first ? #"""# : #",""#)
            first = false
            line.raw(field.name)
            line.raw(#"":"#)
        }

        private mutating func string(_ value: String) throws {
            line.raw(#"""#)
            guard line.plain(value) else { throw Unwritable() }
            line.raw(#"""#)
        }

        mutating func visit(_ field: Field, _ value: inout String) throws { key(field); try string(value) }
        mutating func visit(_ field: Field, _ value: inout String?) throws {
            key(field)
            if let value { try string(value) } else { line.raw("null") }
        }
        mutating func visit(_ field: Field, _ value: inout Int) throws { key(field); line.int(value) }
        mutating func visit(_ field: Field, _ value: inout Int?) throws {
            key(field)
            if let value { line.int(value) } else { line.raw("null") }
        }
        mutating func visit(_ field: Field, _ value: inout Bool) throws { key(field); line.raw(value ? "true" : "false") }
    }
}

/// Bytes written through a pointer into a fixed buffer; past its end it only notes the overflow.
struct LineBuffer {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    var count = 0
    var overflowed = false

    init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    @inline(__always)
    private mutating func room(_ needed: Int) -> Bool {
        guard count + needed <= capacity else { overflowed = true; return false }
        return true
    }

    @inline(__always)
    mutating func raw(_ fragment: StaticString) {
        let length = fragment.utf8CodeUnitCount
        guard room(length) else { return }
        (base + count).update(from: fragment.utf8Start, count: length)
        count += length
    }

    /// A string's bytes as they are, when none of them needs escaping in JSON; `false` otherwise.
    mutating func plain(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            guard room(utf8.count) else { return false }
            for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return false }
            (base + count).update(from: utf8.baseAddress!, count: utf8.count)
            count += utf8.count
            return true
        }
    }

    mutating func typeName(of event: AppEvent) {
        var writer = TypeName(line: self)
        try! event.visitPayload(&writer)
        self = writer.line
    }

    private struct TypeName: EventPayloadVisitor {
        var line: LineBuffer
        mutating func visit<Payload: EventPayload>(_ payload: Payload) { line.raw(Payload.declaration.typeName) }
    }

    /// Decimal, two digits at a time from the end.
    mutating func int(_ value: Int) {
        guard room(20) else { return }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let written: Int = withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            repeat {
                let digit = Int(magnitude % 10)
                magnitude /= 10
                start -= 1
                buffer[start] = UInt8(truncatingIfNeeded: digit) &+ 48
            } while magnitude > 0
            if value < 0 { start -= 1; buffer[start] = UInt8(ascii: "-") }
            let length = buffer.count - start
            (base + count).update(from: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + start, count: length)
            return length
        }
        count += written
    }

    /// The 36-character UUID form.
    mutating func uuid(_ id: EventID) {
        guard room(36) else { return }
        let out = base + count
        var at = 0
        for nibble in 0..<32 {
            if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                out[at] = UInt8(ascii: "-")
                at += 1
            }
            let word = nibble < 16 ? id.high : id.low
            let value = UInt8(truncatingIfNeeded: (word >> UInt64(60 - (nibble & 15) * 4)) & 0xF)
            out[at] = value < 10 ? 48 &+ value : 87 &+ value
            at += 1
        }
        count += 36
    }

    /// `2026-11-21T13:25:17.123456Z`, as `Timestamp.rfc3339`.
    mutating func timestamp(_ timestamp: Timestamp) {
        guard room(27) else { return }
        var (seconds, micros) = timestamp.microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        if micros < 0 { seconds -= 1; micros += 1_000_000 }
        var (days, secondOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
        if secondOfDay < 0 { days -= 1; secondOfDay += 86_400 }
        let (year, month, day) = CivilDate.from(daysSinceEpoch: days)
        let out = base + count
        func put(_ value: Int64, _ width: Int, at offset: Int) {
            var remaining = value
            for index in stride(from: offset + width - 1, through: offset, by: -1) {
                out[index] = UInt8(truncatingIfNeeded: remaining % 10) &+ 48
                remaining /= 10
            }
        }
        put(year, 4, at: 0); out[4] = UInt8(ascii: "-")
        put(month, 2, at: 5); out[7] = UInt8(ascii: "-")
        put(day, 2, at: 8); out[10] = UInt8(ascii: "T")
        put(secondOfDay / 3600, 2, at: 11); out[13] = UInt8(ascii: ":")
        put(secondOfDay % 3600 / 60, 2, at: 14); out[16] = UInt8(ascii: ":")
        put(secondOfDay % 60, 2, at: 17); out[19] = UInt8(ascii: ".")
        put(micros, 6, at: 20); out[26] = UInt8(ascii: "Z")
        count += 27
    }
}
