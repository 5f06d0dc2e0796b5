import Deciding
package import FlowLogBasics

/// The per-type fields of an event, after the envelope, in the order its kind declares them:
/// identifiers as short strings, free text as strings, integers as eight bytes, flags as one byte.
package enum EventFieldsCodec {
    /// The tag stored records give the event's kind.
    @inline(__always)
    package static func tag(of event: LogDecider.Event) -> UInt16 {
        var reader = TagReader()
        try! event.visitPayload(&reader)
        return reader.tag
    }

    /// Writes the fields of the lowest version of the event's kind that holds it, and answers that version.
    package static func encode(_ event: LogDecider.Event, into writer: inout BinaryWriter) -> Int {
        withUnsafeMutablePointer(to: &writer) { pointer in
            var encoder = FieldEncoder(writer: pointer)
            try! event.visitPayload(&encoder)
            return encoder.version
        }
    }

    package static func decode(_ kind: LogDecider.Event.Kind, version: Int, currentVersion: Int, from reader: inout BinaryReader) throws
        -> LogDecider.Event
    {
        var decoder = FieldDecoder(reader: reader, eventVersion: version, currentVersion: currentVersion)
        let event = try LogDecider.Event.decode(kind, &decoder)
        reader = decoder.reader
        return event
    }

    private struct TagReader: EventPayloadVisitor {
        var tag: UInt16 = 0
        @inline(__always)
        mutating func visit<Payload: EventPayload>(_ payload: Payload) { tag = Payload.declaration.tag }
    }

    /// Writes through a pointer: `BinaryWriter` is noncopyable, and visitors are values.
    private struct FieldEncoder: EventPayloadVisitor, FieldVisitor {
        let writer: UnsafeMutablePointer<BinaryWriter>
        var version = 1

        init(writer: UnsafeMutablePointer<BinaryWriter>) { self.writer = writer }

        @inline(__always)
        mutating func visit<Payload: EventPayload>(_ payload: Payload) throws {
            version = try payload.visitLowestVersion(&self)
        }

        mutating func visit(_ field: Field, _ value: inout String) {
            if field.type.form == .identifier { writer.pointee.writeShortString(value) } else { writer.pointee.writeString(value) }
        }

        mutating func visit(_ field: Field, _ value: inout String?) {
            precondition(field.type.form == .identifier, "an optional event field that is not an identifier has no binary layout")
            writer.pointee.writeShortString(value)
        }

        mutating func visit(_ field: Field, _ value: inout Int) { writer.pointee.write(int: value) }

        mutating func visit(_ field: Field, _ value: inout Int?) {
            preconditionFailure("an optional integer event field has no binary layout")
        }

        mutating func visit(_ field: Field, _ value: inout Bool) { writer.pointee.write(value ? UInt8(1) : UInt8(0)) }
    }

    private struct FieldDecoder: PayloadDecoder, FieldVisitor {
        var reader: BinaryReader
        /// The version the record was written in; `event(_:)` upcasts it where it is not the current one.
        let eventVersion: Int?

        /// `nil` where the record holds its kind's current version (most records): `event(_:)` then
        /// reads the payload without looking at its declaration.
        init(reader: BinaryReader, eventVersion: Int, currentVersion: Int) {
            self.reader = reader
            self.eventVersion = eventVersion == currentVersion ? nil : eventVersion
        }

        mutating func visit(_ field: Field, _ value: inout String) throws {
            if field.type.form == .identifier {
                guard let read = try reader.readShortString() else { throw BinaryReader.OutOfBounds() }
                value = read
            } else {
                value = try field.recorded(try reader.readString())
            }
        }

        mutating func visit(_ field: Field, _ value: inout String?) throws { value = try reader.readShortString() }
        // A record holds what its writer checked; one stored unchecked by an earlier build's import
        // is refused here, as every reader refuses it, rather than folded into an overflow.
        mutating func visit(_ field: Field, _ value: inout Int) throws { value = try field.recorded(try reader.readInt()) }
        mutating func visit(_ field: Field, _ value: inout Int?) throws { value = try field.recorded(try reader.readInt()) }
        mutating func visit(_ field: Field, _ value: inout Bool) throws { value = try reader.readByte() != 0 }
    }
}
