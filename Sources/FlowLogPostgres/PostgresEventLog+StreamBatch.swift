#if Network
    import FlowLogBasics
    public import FlowLogStore
    import Foundation
    import PostgresNIO

    /// Many streams read with a few statements: loading them one by one cost three round trips each
    /// (snapshots, the last position, the events after the snapshot), 3,000 for a `send` batch that
    /// met 1,000 new streams; looking up command ids one by one, a round trip per command.
    extension PostgresEventLog: StreamBatchReading {
        public func versions(of streams: [String]) throws -> [String: Int] {
            var versions = Dictionary(streams.map { ($0, 0) }, uniquingKeysWith: { first, _ in first })
            for (stream, version) in try withSession({ session in try Self.versions(from: session.query(versionsQuery(streams))) }) {
                versions[stream] = version
            }
            return versions
        }

        public func receipts(of commands: [(stream: String, commandId: String)]) throws -> [String: [String: CommandReceipt]] {
            try withSession { session in try Self.receipts(from: session.query(receiptsQuery(commands))) }
        }

        /// The versions of those of `streams` that have events; an append reads them under its lock too.
        func versionsQuery(_ streams: [String]) -> PostgresQuery {
            "SELECT stream, version FROM \(unescaped: table("streams")) WHERE stream = ANY(\(streams))"
        }

        static func versions(from result: PostgresQueryResult) throws -> [String: Int] {
            var versions: [String: Int] = [:]
            for row in result.rows {
                let (stream, version) = try row.decode((String, Int64).self)
                versions[stream] = Int(version)
            }
            return versions
        }

        /// The receipts of those of `commands` that were accepted; an append reads them under its lock too.
        func receiptsQuery(_ commands: [(stream: String, commandId: String)]) -> PostgresQuery {
            """
            SELECT c.stream, c.command_id, c.first_position, c.event_count, c.version, c.command_fingerprint FROM \(unescaped: table("commands")) c
            JOIN unnest(\(commands.map(\.stream))::text[], \(commands.map(\.commandId))::text[]) AS u(stream, command_id)
                ON c.stream = u.stream AND c.command_id = u.command_id
            """
        }

        static func receipts(from result: PostgresQueryResult) throws -> [String: [String: CommandReceipt]] {
            var receipts: [String: [String: CommandReceipt]] = [:]
            for row in result.rows {
                let (stream, id, first, count, version, fingerprint) = try row.decode((String, String, Int64, Int32, Int64, Int64?).self)
                receipts[stream, default: [:]][id] = CommandReceipt(
                    firstPosition: Int(first), eventCount: Int(count), version: Int(version),
                    commandFingerprint: fingerprint.map { UInt64(bitPattern: $0) })
            }
            return receipts
        }

        /// Events read by one statement of `streamStates(ofStreams:)` at most (plus one stream's worth): the
        /// rows are held in memory until they are folded.
        static let eventsPerRead = 65_536

        /// One statement for each stream's version and latest snapshot by today's reducers, then one
        /// for the events after those snapshots (one per `eventsPerRead` events). Each statement sees
        /// a contiguous prefix of the log (appends commit in position order), and the events are read
        /// after the snapshot they follow, so each state is one the stream really had. A snapshot that
        /// fails its checksum sends its stream the single-stream way, which passes over damaged ones.
        public func streamStates(ofStreams streams: [String]) throws -> [String: (state: StreamState, version: Int)] {
            let heads: [(stream: String, version: Int, snapshot: Int?, state: ByteBuffer?)] = try withSession { session in
                try session.query(
                    """
                    SELECT u.stream, coalesce(s.version, 0), n.version, n.state FROM unnest(\(streams)::text[]) AS u(stream)
                    LEFT JOIN \(unescaped: table("streams")) s ON s.stream = u.stream
                    LEFT JOIN LATERAL (SELECT version, state FROM \(unescaped: table("snapshots"))
                        WHERE stream = u.stream AND reducer_version = \(Int32(StreamState.reducerVersion)) ORDER BY version DESC LIMIT 1) n ON true
                    """
                ).rows.map { row in
                    let (stream, version, snapshot, state) = try row.decode((String, Int64, Int64?, ByteBuffer?).self)
                    return (stream, Int(version), snapshot.map(Int.init), state)
                }
            }
            var states: [String: StreamFold] = [:]
            states.reserveCapacity(streams.count)
            var pending: [(stream: String, after: Int)] = []
            var pendingEvents = 0
            for head in heads {
                var start = StreamFold.initial
                if let snapshot = head.snapshot, let bytes = head.state {
                    guard let decoded = Self.decodeSnapshot(bytes) else {
                        states[head.stream] = StreamFold(try streamState(ofStream: head.stream, throughPosition: nil))
                        continue
                    }
                    start = StreamFold(decoded, version: snapshot)
                }
                states[head.stream] = start
                if head.version > start.version {
                    pending.append((head.stream, start.version))
                    pendingEvents += head.version - start.version
                }
                if pendingEvents >= Self.eventsPerRead {
                    try fold(pending, into: &states)
                    pending.removeAll(keepingCapacity: true)
                    pendingEvents = 0
                }
            }
            if !pending.isEmpty { try fold(pending, into: &states) }
            return states.mapValues(\.folded)
        }

        /// Folds every event after each stream's version in `streams` into its state, checking each
        /// record against its chain link as `scan` does.
        private func fold(_ streams: [(stream: String, after: Int)], into states: inout [String: StreamFold]) throws {
            let rows: [ChainedRow] = try withSession { session in
                try session.query(
                    """
                    SELECT e.position, e.record, substring(p.record FROM octet_length(p.record) - 7)
                    FROM unnest(\(streams.map(\.stream))::text[], \(streams.map { Int64($0.after) })::int8[]) AS u(stream, after)
                    JOIN \(unescaped: table("events")) e ON e.stream = u.stream AND e.version > u.after
                    LEFT JOIN \(unescaped: table("events")) p ON p.position = e.position - 1
                    ORDER BY e.stream, e.version
                    """
                ).rows.map(Self.chainedRow)
            }
            var event = RecordedEvent.placeholder
            for row in rows {
                try Self.decode(row, into: &event)
                guard var current = states[event.stream], event.version == current.version + 1 else {
                    throw FlowLogError.damaged(
                        RecordDamage(
                            position: row.position, stream: event.stream,
                            problem:
                                "the record says version \(event.version) of \(event.stream), which does not follow the stream's events before it"))
                }
                states[event.stream] = nil
                current.fold(event)
                states[event.stream] = current
            }
        }
    }
#endif
