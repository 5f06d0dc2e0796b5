import ArgumentParser
import FlowDomain
import FlowLog

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
            // The first and last events come from the stream index, by version: two lookups a stream.
            let listings = try log.streams().filter { system || !SystemStreams.isReserved($0.stream) }.map { stream, version in
                guard let first = try log.event(inStream: stream, version: 1), let last = try log.event(inStream: stream, version: version) else {
                    throw CLIFailure("The stream index of \(log.location) lacks version 1 or \(version) of stream \(stream): the log is damaged. Run `flowlog verify` for the details.", .dataError)
                }
                return StreamListing(stream: stream, version: version, firstPosition: first.position, lastPosition: last.position, lastTimestamp: last.timestamp)
            }
            switch format.format {
            case .json: for listing in listings { output.json { StreamRendering.json(listing, into: &$0) } }
            case .text: output.lines(StreamRendering.table(listings))
            }
        }
    }
}
