#if Network
    public import FlowLogBasics
    public import FlowLogStore
    import Foundation
    import PostgresNIO

    /// `flowlog verify` on PostgreSQL: the hash chain and contiguity of the records, every queryable
    /// column against the record it was written from (so a row changed with `UPDATE` is named by its
    /// position, whichever column was changed), then stream versions against `streams` from the
    /// columns so checked (`checkStreamVersions`). Each is a walk of keyset pages, so memory holds a
    /// page, however many streams and events the log has. A forgotten
    /// event's record is checked like any other and counted in `forgotten`; its row must hold no
    /// stream, ids, data or fingerprint any more (`forget` left them NULL).
    extension PostgresEventLog: IntegrityChecking {
        public func checkIntegrity(progress: FlowLogBasics.Progress?) throws -> IntegrityReport {
            var report = IntegrityReport()
            func note(_ position: Int, _ stream: String?, _ detail: String) { report.note(position, stream, detail) }
            let end = try lastPosition()
            var chain = ChainWalk()
            var from = 1
            var json = JSONWriter(capacity: 256)
            // The trace context's columns exist from log schema 5 on.
            let traceColumns = try settings().recordLayout == .traced ? "traceparent, tracestate" : "NULL::text, NULL::text"
            while from <= end {
                typealias Row = (Int64, String?, Int64, String, String, String, Int64?, String?, String?, String?, Bool, ByteBuffer, String?, String?)
                let rows: [Row] = try withSession { session in
                    try session.query(
                        """
                        SELECT position, stream, version, event_id::text, type, actor,
                            CASE WHEN isfinite(recorded_at) THEN (extract(epoch FROM recorded_at) * 1000000)::int8 END,
                            correlation_id, causation_id, data::text, fingerprint IS NOT NULL, record, \(unescaped: traceColumns)
                        FROM \(unescaped: table("events")) WHERE position >= \(Int64(from)) AND position <= \(Int64(end))
                        ORDER BY position LIMIT \(Int64(Self.page))
                        """
                    ).rows.map { try $0.decode(Row.self) }
                }
                guard !rows.isEmpty else { break }
                for (
                    rowPosition, stream, version, eventId, type, actor, microseconds, correlation, causation, data, fingerprinted, record,
                    traceparent, tracestate
                )
                    in rows
                {
                    let position = Int(rowPosition)
                    if let gap = chain.gap(before: position) { note(gap.position, nil, gap.detail) }
                    report.events += 1
                    var event = RecordedEvent.placeholder
                    if let damage = record.withUnsafeReadableBytes({ chain.decode($0, at: position, into: &event) }) {
                        if damage.isNewerThanKnown {
                            report.noteNewer(position, damage.stream ?? stream, damage.problem)
                        } else {
                            note(position, damage.stream ?? stream, damage.problem)
                        }
                        progress?.advance(to: position)
                        continue
                    }
                    if event.isForgotten { report.forgotten += 1 }
                    var changed: [String] = []
                    if stream != (event.isForgotten ? nil : event.stream) { changed.append("stream") }
                    if Int(version) != event.version { changed.append("version") }
                    if EventID(eventId) != event.eventId { changed.append("event_id") }
                    if type != event.event.typeName { changed.append("type") }
                    if actor != event.actor.rawValue { changed.append("actor") }
                    if let microseconds, microseconds != event.timestamp.microseconds { changed.append("recorded_at") }
                    if correlation != event.correlationId { changed.append("correlation_id") }
                    if causation != event.causationId { changed.append("causation_id") }
                    if traceparent != event.traceContext?.traceparent { changed.append("traceparent") }
                    if tracestate != event.traceContext?.state { changed.append("tracestate") }
                    if event.isForgotten {
                        if data != nil { changed.append("data") }
                        if fingerprinted { changed.append("fingerprint") }
                    } else {
                        json.reset()
                        FlowJSON.writeEventData(event.event, asStored: true, into: &json)
                        if data.map({ !Self.sameJSON($0, json.text) }) ?? true { changed.append("data") }
                    }
                    if !changed.isEmpty {
                        note(
                            position, event.isForgotten ? nil : event.stream,
                            "its row's \(changed.joined(separator: ", ")) \(changed.count == 1 ? "does" : "do") not match its record (changed after the event was appended)"
                        )
                    }
                    progress?.advance(to: position)
                }
                from = Int(rows.last!.0) + 1
            }
            if let gap = chain.gap(through: end) { note(gap.position, nil, gap.detail) }
            try checkStreamVersions(&report)
            progress?.finish()
            return report
        }

        /// Whether two JSON texts hold the same value, whatever the order of object members (`jsonb`
        /// keeps its own) and the spacing.
        static func sameJSON(_ a: String, _ b: String) -> Bool {
            guard let left = try? JSONParser.parse(a), let right = try? JSONParser.parse(b) else { return a == b }
            return canonical(left) == canonical(right)
        }

        private static func canonical(_ value: FlowLogBasics.JSONValue) -> FlowLogBasics.JSONValue {
            switch value {
            case .object(let members):
                var last: [String: FlowLogBasics.JSONValue] = [:]
                for (key, member) in members { last[key] = canonical(member) }
                return .object(last.keys.sorted().map { ($0, last[$0]!) })
            case .array(let items):
                return .array(items.map(canonical))
            default:
                return value
            }
        }
    }

    /// Following without polling: appending transactions `pg_notify` the log's channel with their last
    /// position when they commit; a follower `LISTEN`s on its log's connection and wakes on it, and
    /// still checks every `followPollInterval` seconds in case a notification was lost.
    extension PostgresEventLog: LogFollowing {
        public func waitForEvents(after position: Int, timeout: Double) throws -> Int {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while true {
                let seen = notifications.state.count
                do {
                    try startListening()
                    let last = try lastPosition()
                    if last > position || Date() >= deadline { return last }
                } catch let error as FlowLogError {
                    // A lost connection is opened again (and listens again) by the next try, until the deadline.
                    guard case .io = error, Date() < deadline else { throw error }
                    Thread.sleep(forTimeInterval: min(options.followPollInterval, max(0, deadline.timeIntervalSinceNow)))
                    continue
                }
                notifications.wait(after: seen, until: min(deadline, Date(timeIntervalSinceNow: options.followPollInterval)))
            }
        }

        /// LISTENs on the log's channel, once per log object (again after a reconnection: `PostgresSession`).
        func startListening() throws {
            try withSession { session in
                guard !listening else { return }
                let box = notifications
                try session.addListener(channel: schema.channel) { payload in
                    if let position = Int(payload) { box.announce(position) }
                }
                listening = true
            }
        }
    }
#endif
