import ArgumentParser
import FlowLogStore

struct SnapshotsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshots",
        abstract: "Show or set how often a stream's state is saved (every K events), so `state --at` and replays cost O(K).",
        discussion: "Snapshots carry the reducer version that wrote them; one from other reducers is never used.")

    @Option(parsing: .unconditional, help: "Save a snapshot every K events of a stream from now on (0: none).", transform: ValueArguments.wholeNumber)
    var interval: Int?
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func validate() throws {
        if let interval, interval < 0 { throw ValidationError("--interval must be 0 or more; got \(interval).") }
    }

    func run() throws {
        try CommandExecution.run { output in
            let log = try Composition.openLog(logOptions, access: interval == nil ? .readOnly : .readWrite)
            if let interval { try log.setSnapshotInterval(interval) }
            let (interval, count) = (try log.snapshotInterval(), try log.snapshotCount())
            if format.isJSON {
                output.json { json in
                    json.beginObject()
                    json.key("interval")
                    json.int(interval)
                    json.key("snapshots")
                    json.int(count)
                    json.key("reducerVersion")
                    json.int(Int(LogDecider.reducerVersion))
                    json.endObject()
                }
            } else {
                output.line("snapshot interval: \(interval) events; snapshots stored: \(count); reducer version: \(LogDecider.reducerVersion)")
            }
        }
    }
}
