import Deciding
package import FlowLogBasics

/// An exported event's line, written into a buffer on the stack and appended to the writer in one
/// copy. `FlowJSON.writeEvent` appended each fragment, digit and hex pair to the writer's array,
/// paying its capacity and uniqueness checks each time: a fifth of an export's instructions.
///
/// Only for events whose text needs no escaping and fits the buffer (identifiers never need
/// escaping; names and reasons usually do not); `FlowJSON.writeEvent` writes the rest, and a test
/// requires the two to agree byte for byte.
package enum EventLine {
    static let capacity = 1_024

    /// Appends `record`'s line to `json` and returns `true`, or leaves `json` alone and returns
    /// `false` when the event does not fit the fast path.
    package static func append(_ record: RecordedEvent, to json: inout JSONWriter) -> Bool {
        json.appendBuiltOnStack(capacity: capacity) { line in write(record, into: &line) }
    }

    private static func write(_ record: RecordedEvent, into line: inout LineBuffer) -> Bool {
        line.raw(#"{"position":"#)
        line.int(record.position)
        line.raw(#","stream":""#)
        guard line.plain(record.stream) else { return false }
        line.raw(#"","version":"#)
        line.int(record.version)
        line.raw(#","eventId":""#)
        line.uuid(record.eventId)
        line.raw(#"","type":""#)
        let eventVersion = line.typeName(of: record.event)
        line.raw(#"","actor":""#)
        line.raw(record.actor == .user ? "user" : "system")
        line.raw(#"","timestamp":""#)
        line.timestamp(record.timestamp)
        line.raw(#"","schemaVersion":"#)
        line.int(record.schemaVersion)
        line.raw(#","eventVersion":"#)
        line.int(eventVersion)
        if let correlation = record.correlationId {
            line.raw(#","correlationId":""#)
            guard line.plain(correlation) else { return false }
            line.raw(#"""#)
        }
        if let causation = record.causationId {
            line.raw(#","causationId":""#)
            guard line.plain(causation) else { return false }
            line.raw(#"""#)
        }
        if let trace = record.traceContext {
            line.raw(#","traceparent":""#)
            guard line.plain(trace.traceparent) else { return false }
            line.raw(#"""#)
            if let state = trace.state {
                line.raw(#","tracestate":""#)
                guard line.plain(state) else { return false }
                line.raw(#"""#)
            }
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

        mutating func visit(_ field: Field, _ value: inout String) throws {
            key(field)
            try string(value)
        }
        mutating func visit(_ field: Field, _ value: inout String?) throws {
            key(field)
            if let value { try string(value) } else { line.raw("null") }
        }
        mutating func visit(_ field: Field, _ value: inout Int) throws {
            key(field)
            line.int(value)
        }
        mutating func visit(_ field: Field, _ value: inout Int?) throws {
            key(field)
            if let value { line.int(value) } else { line.raw("null") }
        }
        mutating func visit(_ field: Field, _ value: inout Bool) throws {
            key(field)
            line.raw(value ? "true" : "false")
        }
    }
}

extension JSONWriter {
    /// A value built by `build` in a buffer of `capacity` bytes on the stack and appended in one
    /// copy, after a separator where one is due; `false`, appending nothing, when `build` refuses
    /// (text that needs escaping) or the value does not fit.
    @inline(__always)
    package mutating func appendBuiltOnStack(capacity: Int, _ build: (inout LineBuffer) -> Bool) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var line = LineBuffer(base: buffer.baseAddress!, capacity: capacity, lastDay: lastDay)
            guard build(&line), !line.overflowed else { return false }
            lastDay = line.lastDay
            appendSeparated(UnsafeBufferPointer(start: line.base, count: line.count))
            return true
        }
    }
}

/// Bytes written through a pointer into a fixed buffer; past its end it only notes the overflow.
package struct LineBuffer {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    var count = 0
    var overflowed = false
    var lastDay: DayText

    init(base: UnsafeMutablePointer<UInt8>, capacity: Int, lastDay: DayText = DayText()) {
        self.base = base
        self.capacity = capacity
        self.lastDay = lastDay
    }

    @inline(__always)
    private mutating func room(_ needed: Int) -> Bool {
        guard count + needed <= capacity else {
            overflowed = true
            return false
        }
        return true
    }

    @inline(__always)
    package mutating func raw(_ fragment: StaticString) {
        let length = fragment.utf8CodeUnitCount
        guard room(length) else { return }
        (base + count).update(from: fragment.utf8Start, count: length)
        count += length
    }

    /// A string's bytes as they are, when none of them needs escaping in JSON; `false` otherwise.
    package mutating func plain(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            guard room(utf8.count) else { return false }
            for byte in utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return false }
            (base + count).update(from: utf8.baseAddress!, count: utf8.count)
            count += utf8.count
            return true
        }
    }

    /// Writes the event's type name and answers its kind's version, found in the same visit.
    mutating func typeName(of event: LogDecider.Event) -> Int {
        var writer = TypeName(line: self)
        try! event.visitPayload(&writer)
        self = writer.line
        return writer.version
    }

    private struct TypeName: EventPayloadVisitor {
        var line: LineBuffer
        var version = 1
        mutating func visit<Payload: EventPayload>(_ payload: Payload) {
            let declaration = Payload.declaration
            line.raw(declaration.typeName)
            version = declaration.version
        }
    }

    /// "00" through "99": the two digits of each number below 100, read two bytes at a time.
    private static let digitPairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    @inline(__always)
    private static func pair(_ value: Int) -> UInt16 {
        UnsafeRawPointer(digitPairs.utf8Start).loadUnaligned(fromByteOffset: value &* 2, as: UInt16.self)
    }

    /// Decimal, two digits at a time from the end.
    package mutating func int(_ value: Int) {
        guard room(20) else { return }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let written: Int = withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            while magnitude >= 100 {
                let (rest, last) = magnitude.quotientAndRemainder(dividingBy: 100)
                start -= 2
                buffer.storeBytes(of: Self.pair(Int(last)), toByteOffset: start, as: UInt16.self)
                magnitude = rest
            }
            if magnitude >= 10 {
                start -= 2
                buffer.storeBytes(of: Self.pair(Int(magnitude)), toByteOffset: start, as: UInt16.self)
            } else {
                start -= 1
                buffer[start] = UInt8(truncatingIfNeeded: magnitude) &+ 48
            }
            if value < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            let length = buffer.count - start
            (base + count).update(from: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + start, count: length)
            return length
        }
        count += written
    }

    /// The eight hex digits of `value`, most significant first when stored little-endian: each
    /// nibble spread into a byte, then '0'–'9' or 'a'–'f' added to all eight at once.
    @inline(__always)
    private static func hex8(_ value: UInt32) -> UInt64 {
        var x = UInt64(value)
        x = ((x & 0xFFFF_0000) << 16) | (x & 0xFFFF)
        x = ((x & 0x0000_FF00_0000_FF00) << 8) | (x & 0x0000_00FF_0000_00FF)
        x = ((x & 0x00F0_00F0_00F0_00F0) << 4) | (x & 0x000F_000F_000F_000F)
        // 1 in each byte whose nibble is 10 or more.
        let letters = ((x &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return (x &+ 0x3030_3030_3030_3030 &+ letters &* 39).byteSwapped
    }

    /// The 36-character UUID form (8-4-4-4-12 lower-case hex digits).
    mutating func uuid(_ id: EventID) {
        guard room(36) else { return }
        let out = UnsafeMutableRawPointer(base + count)
        let first = Self.hex8(UInt32(truncatingIfNeeded: id.high >> 32))
        let second = Self.hex8(UInt32(truncatingIfNeeded: id.high))
        let third = Self.hex8(UInt32(truncatingIfNeeded: id.low >> 32))
        let fourth = Self.hex8(UInt32(truncatingIfNeeded: id.low))
        let dash = UInt8(ascii: "-")
        out.storeBytes(of: first.littleEndian, toByteOffset: 0, as: UInt64.self)
        out.storeBytes(of: dash, toByteOffset: 8, as: UInt8.self)
        out.storeBytes(of: UInt32(truncatingIfNeeded: second).littleEndian, toByteOffset: 9, as: UInt32.self)
        out.storeBytes(of: dash, toByteOffset: 13, as: UInt8.self)
        out.storeBytes(of: UInt32(truncatingIfNeeded: second >> 32).littleEndian, toByteOffset: 14, as: UInt32.self)
        out.storeBytes(of: dash, toByteOffset: 18, as: UInt8.self)
        out.storeBytes(of: UInt32(truncatingIfNeeded: third).littleEndian, toByteOffset: 19, as: UInt32.self)
        out.storeBytes(of: dash, toByteOffset: 23, as: UInt8.self)
        out.storeBytes(of: UInt32(truncatingIfNeeded: third >> 32).littleEndian, toByteOffset: 24, as: UInt32.self)
        out.storeBytes(of: fourth.littleEndian, toByteOffset: 28, as: UInt64.self)
        count += 36
    }

    /// `2026-11-21T13:25:17.123456Z`, as `Timestamp.rfc3339`.
    mutating func timestamp(_ timestamp: Timestamp) {
        guard room(27) else { return }
        var (seconds, micros) = timestamp.microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        if micros < 0 {
            seconds -= 1
            micros += 1_000_000
        }
        var (days, secondOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
        if secondOfDay < 0 {
            days -= 1
            secondOfDay += 86_400
        }
        let out = UnsafeMutableRawPointer(base + count)
        /// Two digits of a value below 100 at `offset`.
        func put(_ value: Int64, at offset: Int) {
            out.storeBytes(of: Self.pair(Int(value)), toByteOffset: offset, as: UInt16.self)
        }
        if days != lastDay.days {
            let (year, month, day) = CivilDate.from(daysSinceEpoch: days)
            // Years of other than four digits are left to the general writer.
            guard (0...9_999).contains(year) else {
                overflowed = true
                return
            }
            let (century, yearOfCentury) = year.quotientAndRemainder(dividingBy: 100)
            put(century, at: 0)
            put(yearOfCentury, at: 2)
            out.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 4, as: UInt8.self)
            put(month, at: 5)
            out.storeBytes(of: UInt8(ascii: "-"), toByteOffset: 7, as: UInt8.self)
            put(day, at: 8)
            lastDay = DayText(days: days, text: out.loadUnaligned(as: (UInt64, UInt16).self))
        } else {
            out.storeBytes(of: lastDay.text, as: (UInt64, UInt16).self)
        }
        out.storeBytes(of: UInt8(ascii: "T"), toByteOffset: 10, as: UInt8.self)
        put(secondOfDay / 3600, at: 11)
        out.storeBytes(of: UInt8(ascii: ":"), toByteOffset: 13, as: UInt8.self)
        put(secondOfDay % 3600 / 60, at: 14)
        out.storeBytes(of: UInt8(ascii: ":"), toByteOffset: 16, as: UInt8.self)
        put(secondOfDay % 60, at: 17)
        out.storeBytes(of: UInt8(ascii: "."), toByteOffset: 19, as: UInt8.self)
        put(micros / 10_000, at: 20)
        put(micros / 100 % 100, at: 22)
        put(micros % 100, at: 24)
        out.storeBytes(of: UInt8(ascii: "Z"), toByteOffset: 26, as: UInt8.self)
        count += 27
    }
}
