#if Network
    import FlowLogBasics
    import PostgresNIO

    /// An event id as a PostgreSQL `uuid` (binary: the 16 bytes, high half first), without Foundation.
    struct PostgresEventID: PostgresNonThrowingEncodable, PostgresArrayEncodable, Sendable {
        let id: EventID
        init(_ id: EventID) { self.id = id }

        static var psqlType: PostgresDataType { .uuid }
        static var psqlArrayType: PostgresDataType { .uuidArray }
        static var psqlFormat: PostgresFormat { .binary }

        func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
            byteBuffer.writeInteger(id.high, endianness: .big)
            byteBuffer.writeInteger(id.low, endianness: .big)
        }
    }

    /// A FlowLog timestamp as `timestamptz` (binary: microseconds since 2000-01-01), exactly, with no
    /// detour through floating point. Times outside years 1 to 9999 are stored as ∓infinity: the column
    /// is for people; the record keeps the exact value.
    struct PostgresTimestamp: PostgresNonThrowingEncodable, PostgresArrayEncodable, Sendable {
        let microseconds: Int64
        init(_ timestamp: Timestamp) { microseconds = timestamp.microseconds }

        static var psqlType: PostgresDataType { .timestamptz }
        static var psqlArrayType: PostgresDataType { .timestamptzArray }
        static var psqlFormat: PostgresFormat { .binary }

        /// 2000-01-01T00:00:00Z in microseconds since the Unix epoch.
        static let postgresEpoch: Int64 = 946_684_800_000_000
        static let earliest: Int64 = -62_135_596_800_000_000
        static let latest: Int64 = 253_402_300_799_999_999

        func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
            let value: Int64 = microseconds < Self.earliest ? .min : microseconds > Self.latest ? .max : microseconds - Self.postgresEpoch
            byteBuffer.writeInteger(value, endianness: .big)
        }

        /// The text form COPY takes.
        static func text(_ timestamp: Timestamp) -> String {
            timestamp.microseconds < earliest ? "-infinity" : timestamp.microseconds > latest ? "infinity" : timestamp.rfc3339
        }
    }

    /// Stable 64-bit keys for advisory locks: FNV-1a of a text.
    enum AdvisoryKey {
        static func of(_ text: String) -> Int64 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
            return Int64(bitPattern: hash)
        }
    }
#endif
