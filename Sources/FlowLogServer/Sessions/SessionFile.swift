#if Network
    import FlowLogBasics
    import FlowLogHistory
    import FlowLogMemory
    import FlowLogStore

    /// A dropped export read into FlowLogMemory's read-only log, the one in-memory log, for
    /// `POST /sessions`; the server reads it as it reads its own (`InspectedLog`).
    ///
    /// It is read as `replay --file` reads a file, with the gaps the API allows: positions strictly
    /// increase (gaps are fine, so a one-stream export loads), each stream's versions run 1, 2, 3, …,
    /// event ids are unique. Events are kept as they are, even those today's rules would refuse.
    enum SessionFile {
        struct Invalid: Error {
            let message: String
        }

        /// Reads an NDJSON export; throws `Invalid` naming the first line that is not one.
        static func read(ndjson bytes: UnsafeRawBufferPointer) throws -> ReadOnlyMemoryLog {
            var loader = ReadOnlyMemoryLog.Loader()
            // A session may hold some streams of a log (positions with gaps), each of them whole.
            var order = HistoryOrder(
                allowingPositionGaps: true, allowingVersionGaps: false,
                gapHint: "Export whole streams (`\(ProgramName.current) export --stream S`), or the whole log.")
            try NDJSONLines.forEach(in: bytes) { line, lineNumber in
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
                let record: RecordedEvent
                do throws(RecordedEventJSON.Problem) {
                    record = try RecordedEventJSON.decode(line)
                } catch {
                    throw Invalid(
                        message:
                            "Line \(lineNumber) is not an exported event: \(error.message). Give a file that `\(ProgramName.current) export` (or GET /events) wrote."
                    )
                }
                // `HistoryOrder` words what is out of order; the loader refuses a repeated event id.
                if let problem = order.admit(record, line: lineNumber) {
                    throw Invalid(message: "Line \(lineNumber) \(problem)")
                }
                do throws(ReadOnlyMemoryLog.Loader.Refusal) {
                    try loader.add(record, line: lineNumber)
                } catch .repeatedEventId(let earlier) {
                    throw Invalid(message: "Line \(lineNumber) repeats event id \(record.eventId) of line \(earlier): each event appears once.")
                } catch {
                    // Never met: `HistoryOrder` has refused what the loader would.
                    throw Invalid(
                        message:
                            "Line \(lineNumber) is out of order (\(error)). Give a file that `\(ProgramName.current) export` (or GET /events) wrote.")
                }
            }
            guard loader.count > 0 else {
                throw Invalid(
                    message:
                        "The file holds no events; give an NDJSON export (`\(ProgramName.current) export`, GET /events or the inspector's download).")
            }
            return loader.finish()
        }
    }
#endif
