#if Network
    import FlowLogBasics
    import FlowLogStore
    import PostgresNIO

    /// Rows of `position, record, the last 8 bytes of the record before it`: how the reads that do not
    /// walk the whole log check each record against its chain link without reading the rows between.
    extension PostgresEventLog {
        typealias ChainedRow = (position: Int, record: ByteBuffer, previousTail: ByteBuffer?)

        static func chainedRow(_ row: PostgresRow) throws -> ChainedRow {
            let (position, record, previous) = try row.decode((Int64, ByteBuffer, ByteBuffer?).self)
            return (Int(position), record, previous)
        }

        /// Decodes `row` into `event`, checking it against the hash stored at the position before it
        /// (the genesis hash at position 1); a missing predecessor is damage.
        static func decode(_ row: ChainedRow, into event: inout RecordedEvent) throws {
            let previousHash: UInt64
            if row.position == 1 {
                previousHash = RecordCodec.genesisHash
            } else {
                guard let tail = row.previousTail, let hash = tail.withUnsafeReadableBytes({ RecordCodec.storedHash(of: $0) }) else {
                    throw FlowLogError.damaged(RecordDamage(position: row.position - 1, stream: nil, problem: "it is missing"))
                }
                previousHash = hash
            }
            _ = try decode(row.record, position: row.position, previousHash: previousHash, into: &event)
        }
    }
#endif
