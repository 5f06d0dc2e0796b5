#if Network
    import FlowLogStore
    import PostgresNIO

    /// The second half of `verify` on PostgreSQL: each stream's versions run 1, 2, 3… at rising
    /// positions, and end where `streams` says. Two walks in stream order, the events by their
    /// `(stream, version)` key and the `streams` table by its own, merged as they go: where a map of
    /// every stream's version held a million entries for a million sessions, this holds two pages.
    /// The columns it reads were checked against their records by the walk in position order.
    extension PostgresEventLog {
        func checkStreamVersions(_ report: inout IntegrityReport) throws {
            var listing = StreamTablePages(log: self)
            // The stream whose events are being walked: its last version and that version's position.
            var current: (stream: String, version: Int, position: Int)?
            func close(_ stream: String, at version: Int) throws {
                while let (listed, head) = try listing.peek(), listed.utf8.lexicographicallyPrecedes(stream.utf8) {
                    report.note(0, listed, "the stream's stored version is \(head), but its events go up to version 0")
                    report.streams += 1
                    try listing.advance()
                }
                if let (listed, head) = try listing.peek(), listed == stream {
                    if head != version {
                        report.note(0, stream, "the stream's stored version is \(head), but its events go up to version \(version)")
                    }
                    report.streams += 1
                    try listing.advance()
                } else {
                    report.note(0, stream, "the stream has events up to version \(version) but no stored version")
                }
            }
            var after: (stream: String, version: Int64) = ("", 0)
            while true {
                let page: [(String, Int64, Int64)] = try withSession { session in
                    try session.query(
                        """
                        SELECT stream, version, position FROM \(unescaped: table("events"))
                        WHERE stream IS NOT NULL AND (stream, version) > (\(after.stream), \(after.version))
                        ORDER BY stream, version LIMIT \(Int64(Self.page))
                        """
                    ).rows.map { try $0.decode((String, Int64, Int64).self) }
                }
                for (stream, version, position) in page {
                    let (version, position) = (Int(version), Int(position))
                    if let last = current, last.stream == stream {
                        if version != last.version + 1 {
                            report.note(position, stream, "it is version \(version) of its stream, which was at version \(last.version)")
                        } else if position < last.position {
                            report.note(
                                position, stream,
                                "it is version \(version) of its stream, but version \(last.version) comes after it, at position \(last.position)")
                        }
                    } else {
                        if let last = current { try close(last.stream, at: last.version) }
                        if version != 1 { report.note(position, stream, "it is version \(version) of its stream, which was at version 0") }
                    }
                    current = (stream, version, position)
                }
                guard page.count == Self.page, let last = page.last else { break }
                after = (last.0, last.1)
            }
            if let last = current { try close(last.stream, at: last.version) }
            while let (listed, head) = try listing.peek() {
                report.note(0, listed, "the stream's stored version is \(head), but its events go up to version 0")
                report.streams += 1
                try listing.advance()
            }
        }
    }

    /// The `streams` table in stream order, a keyset page at a time, read one row ahead.
    private struct StreamTablePages {
        let log: PostgresEventLog
        private var rows: [(String, Int)] = []
        private var index = 0
        private var exhausted = false

        init(log: PostgresEventLog) { self.log = log }

        /// The next row, without moving past it.
        mutating func peek() throws -> (String, Int)? {
            if index == rows.count, !exhausted {
                let after = rows.last?.0
                rows = []
                index = 0
                try log.forEachStream(from: after) { stream, version in
                    if let after, stream == after { return true }
                    rows.append((stream, version))
                    return rows.count < PostgresEventLog.streamsPerPage
                }
                exhausted = rows.count < PostgresEventLog.streamsPerPage
            }
            return index < rows.count ? rows[index] : nil
        }

        mutating func advance() throws { index += 1 }
    }
#endif
