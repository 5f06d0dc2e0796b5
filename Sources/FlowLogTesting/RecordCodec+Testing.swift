package import FlowLogBasics
package import FlowLogStore

extension RecordCodec {
    /// Encodes one record with salts of its own, in the whole layout unless told (tests that build
    /// records by hand reseal them as that layout chains them).
    package static func encode(
        _ record: RecordedEvent, previousHash: UInt64, layout: RecordLayout = .whole,
        into writer: inout BinaryWriter
    ) -> UInt64 {
        var salts = RecordSalts()
        return encode(record, previousHash: previousHash, layout: layout, salts: &salts, into: &writer)
    }
}
