import ArgumentParser
import Deciding
import FlowLogStore

struct StreamsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "streams",
        abstract: "List the log's streams: each one's version, first and last position, and the time of its last event.")

    @Flag(help: "Include the log's own streams (flowlog:erasures, the erasure audit trail).") var system = false
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func run() throws {
        try CommandExecution.run { output in
            let log = try Composition.openLog(logOptions, access: .readOnly)
            switch format.format {
            case .json:
                try forEachListing(in: log) { listing in output.json { StreamRendering.json(listing, into: &$0) } }
            case .text:
                // The table's columns are as wide as their widest cell: a first walk of the stream
                // table finds them, so the rows can be written as the second walk meets them.
                var table = StreamRendering.table(widths: try StreamRendering.widths(of: log, system: system))
                var rows = 0
                try forEachListing(in: log) { listing in
                    table.add(StreamRendering.row(listing))
                    rows += 1
                    if rows % StreamRendering.rowsPerWrite == 0 { output.lines(table.takeLines(withHeader: rows == StreamRendering.rowsPerWrite)) }
                }
                output.lines(rows == 0 ? ["(no streams)"] : table.takeLines(withHeader: rows < StreamRendering.rowsPerWrite))
            }
        }
    }

    /// Each stream in id order with its first and last events (`EventLog.forEachStreamListing`):
    /// memory holds one page of streams, however many there are.
    private func forEachListing(in log: any EventLog, _ body: (StreamListing) throws -> Void) throws {
        try log.forEachStreamListing(from: nil) { listing in
            if system || !SystemStreams.isReserved(listing.stream) { try body(listing) }
            return true
        }
    }
}
