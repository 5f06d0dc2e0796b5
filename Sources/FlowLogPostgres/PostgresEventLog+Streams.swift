#if Network
    import FlowLogBasics
    public import FlowLogStore
    import PostgresNIO

    extension PostgresEventLog {
        /// Keyset pages of the `streams` table's primary key (`COLLATE "C"`: byte order, as LMDB's),
        /// never one result set of every stream.
        public func forEachStream(from start: String?, _ body: (String, Int) throws -> Bool) throws {
            var after: String?
            while true {
                let page: [(String, Int)] = try withSession { session in
                    let rows =
                        if let after {
                            try session.query(
                                "SELECT stream, version FROM \(unescaped: table("streams")) WHERE stream > \(after) ORDER BY stream LIMIT \(Int64(Self.streamsPerPage))"
                            ).rows
                        } else {
                            try session.query(
                                "SELECT stream, version FROM \(unescaped: table("streams")) WHERE stream >= \(start ?? "") ORDER BY stream LIMIT \(Int64(Self.streamsPerPage))"
                            ).rows
                        }
                    return try rows.map { row in
                        let (stream, version) = try row.decode((String, Int64).self)
                        return (stream, Int(version))
                    }
                }
                for (stream, version) in page { guard try body(stream, version) else { return } }
                guard page.count == Self.streamsPerPage, let last = page.last else { return }
                after = last.0
            }
        }

        /// Streams a keyset page of `forEachStream` holds.
        static let streamsPerPage = 1_000

        /// A keyset page of `streams` joined with each stream's first and last events, in one
        /// statement: two lookups a stream were two round trips each, minutes for a million sessions.
        /// The last event's record is decoded (and checked against its chain link) for its time.
        public func forEachStreamListing(from start: String?, _ body: (StreamListing) throws -> Bool) throws {
            var after: String?
            var event = RecordedEvent.placeholder
            while true {
                let page: [(String, Int64, Int64, ChainedRow)] = try withSession { session in
                    // The page of streams first, then each one's events by lateral lookups: joined
                    // whole, the planner merged with a scan of the events index from its start.
                    let columns = "SELECT s.stream, s.version, f.position, l.position, l.record, p.tail FROM"
                    let lookups = """
                        CROSS JOIN LATERAL (SELECT position FROM \(table("events")) WHERE stream = s.stream AND version = 1) f
                        CROSS JOIN LATERAL (SELECT position, record FROM \(table("events")) WHERE stream = s.stream AND version = s.version) l
                        LEFT JOIN LATERAL (SELECT substring(record FROM octet_length(record) - 7) AS tail FROM \(table("events")) WHERE position = l.position - 1) p ON true
                        ORDER BY s.stream
                        """
                    let streams = table("streams")
                    let limit = Int64(Self.streamsPerPage)
                    let rows =
                        if let after {
                            try session.query(
                                "\(unescaped: columns) (SELECT stream, version FROM \(unescaped: streams) WHERE stream > \(after) ORDER BY stream LIMIT \(limit)) s \(unescaped: lookups)"
                            ).rows
                        } else {
                            try session.query(
                                "\(unescaped: columns) (SELECT stream, version FROM \(unescaped: streams) WHERE stream >= \(start ?? "") ORDER BY stream LIMIT \(limit)) s \(unescaped: lookups)"
                            ).rows
                        }
                    return try rows.map { row in
                        let (stream, version, first, last, record, previous) = try row.decode(
                            (String, Int64, Int64, Int64, ByteBuffer, ByteBuffer?).self)
                        return (stream, version, first, (Int(last), record, previous))
                    }
                }
                for (stream, version, first, last) in page {
                    try Self.decode(last, into: &event)
                    let listing = StreamListing(
                        stream: stream, version: Int(version), firstPosition: Int(first), lastPosition: last.position, lastTimestamp: event.timestamp)
                    guard try body(listing) else { return }
                }
                guard page.count == Self.streamsPerPage, let last = page.last else { return }
                after = last.0
            }
        }

        /// Keyset pages of the events table's `(stream, version)` key, each row with the tail of the
        /// record before it (its chain link) and its fingerprint: one statement a page, where a query
        /// a stream cost a round trip for each of a million sessions. Forgotten rows have no stream
        /// and are not met.
        public func forEachEventWithFingerprintByStream(_ body: (RecordedEvent, UInt64?) throws -> Bool) throws {
            var after: (stream: String, version: Int64)?
            var event = RecordedEvent.placeholder
            while true {
                let page: [(ChainedRow, UInt64?, String, Int64)] = try withSession { session in
                    let (stream, version) = after ?? ("", 0)
                    return try session.query(
                        """
                        SELECT e.position, e.record, substring(p.record FROM octet_length(p.record) - 7), e.fingerprint, e.stream, e.version
                        FROM \(unescaped: table("events")) e LEFT JOIN \(unescaped: table("events")) p ON p.position = e.position - 1
                        WHERE e.stream IS NOT NULL AND (e.stream, e.version) > (\(stream), \(version))
                        ORDER BY e.stream, e.version LIMIT \(Int64(Self.page))
                        """
                    ).rows.map { row in
                        let (position, record, previous, fingerprint, stream, version) = try row.decode(
                            (Int64, ByteBuffer, ByteBuffer?, Int64?, String, Int64).self)
                        return ((Int(position), record, previous), fingerprint.map { UInt64(bitPattern: $0) }, stream, version)
                    }
                }
                for (row, fingerprint, stream, version) in page {
                    try Self.decode(row, into: &event)
                    guard event.stream == stream, event.version == Int(version) else {
                        throw FlowLogError.damaged(
                            RecordDamage(
                                position: row.position, stream: stream,
                                problem: "the row says version \(version) of \(stream), the record says version \(event.version) of \(event.stream)"))
                    }
                    guard try body(event, fingerprint) else { return }
                }
                guard page.count == Self.page, let last = page.last else { return }
                after = (last.2, last.3)
            }
        }
    }
#endif
