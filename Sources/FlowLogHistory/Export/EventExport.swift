public import FlowLogBasics
public import FlowLogStore
import FlowLogSystem

/// Streams a log's events out as NDJSON (SPEC §5's envelope) or CSV (`CSVSchema`), from one read
/// transaction (a consistent snapshot, whatever other processes append meanwhile), in constant memory:
/// output is flushed in blocks of about 1 MiB. A whole-log export reads on a second thread
/// (`WalkAhead`) while this one formats.
public struct EventExport {
    public enum Format: String, Sendable, CaseIterable {
        case ndjson
        case csv
    }

    public var format: Format
    public var filter: ExportFilter
    /// Whether a forgotten event (`flowlog forget`) is written as a tombstone (NDJSON: its position,
    /// version, event id, type, actor and time, and `"forgotten":true`), so that the export imports
    /// into the same log, or left out. CSV always leaves them out: its columns have no place to say
    /// that a row's data is gone, and blank fields would read as data.
    public var includesForgotten: Bool

    public init(format: Format, filter: ExportFilter = ExportFilter(), includesForgotten: Bool = true) {
        self.format = format
        self.filter = filter
        self.includesForgotten = includesForgotten && format == .ndjson
    }

    /// Writes the export to `output` and returns the number of events written.
    @discardableResult
    public func run(from log: any EventLog, to output: any OutputSink, progress: Progress? = nil) throws -> Int {
        let blockSize = 1 << 20
        var json = JSONWriter(capacity: blockSize + 4096)
        var csv = CSVRowWriter(capacity: blockSize + 4096)
        if format == .csv { csv.writeHeader() }
        var written = 0
        let body: (RecordedEvent) throws -> Bool = { record in
            if let to = filter.toPosition, record.position > to { return false }
            guard filter.accepts(record) else { return true }
            switch format {
            case .ndjson:
                FlowJSON.writeEvent(record, into: &json)
                json.newline()
                if json.bytes.count >= blockSize {
                    try output.write(json.bytes)
                    json.reset()
                }
            case .csv:
                csv.write(record)
                if csv.bytes.count >= blockSize {
                    try output.write(csv.bytes)
                    csv.reset()
                }
            }
            written += 1
            progress?.advance(to: record.position)
            return true
        }
        if filter.streams.count == 1, let stream = filter.streams.first {
            try log.forEachEvent(inStream: stream, throughPosition: filter.toPosition) { record in
                record.position < filter.fromPosition ? true : try body(record)
            }
        } else {
            try WalkAhead.forEachEvent(
                in: log, from: filter.fromPosition, through: filter.toPosition,
                includingForgotten: includesForgotten, body)
        }
        switch format {
        case .ndjson: if !json.bytes.isEmpty { try output.write(json.bytes) }
        case .csv: if !csv.bytes.isEmpty { try output.write(csv.bytes) }
        }
        progress?.finish()
        return written
    }
}
