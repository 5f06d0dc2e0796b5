#if Network
    public import FlowLogBasics
    public import FlowLogStore
    import PostgresNIO

    /// The events table's unique `event_id`, read for many ids in one statement.
    extension PostgresEventLog: EventIdLookup {
        public func positions(ofEventIds ids: [EventID]) throws -> [EventID: Int] {
            guard !ids.isEmpty else { return [:] }
            return try withSession { session in
                var found: [EventID: Int] = [:]
                let rows = try session.query(
                    """
                    SELECT event_id::text, position FROM \(unescaped: table("events")) WHERE event_id = ANY(\(ids.map(PostgresEventID.init))::uuid[])
                    """
                ).rows
                for row in rows {
                    let (text, position) = try row.decode((String, Int64).self)
                    if let id = EventID(text) { found[id] = Int(position) }
                }
                return found
            }
        }
    }
#endif
