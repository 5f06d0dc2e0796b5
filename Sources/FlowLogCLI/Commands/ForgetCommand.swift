import ArgumentParser
import FlowLog

/// `flowlog forget --stream S`: erasure on request (GDPR art. 17) without breaking the hash chain.
struct ForgetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Forget a stream for good: its data, id and correlation ids become unreadable; the chain still verifies.",
        discussion: """
        In one transaction, each of the stream's events loses its stream id, correlation and \
        causation ids and data; its position, version, event id, kind, actor and timestamp stay, so \
        positions stay contiguous and counts by kind and day still add up, and `verify` counts it as \
        forgotten. Everything derived from the stream goes too: its snapshots, head, command \
        receipts, orders and state fingerprints, and in the storage read model its state and flags \
        (its orders keep their totals, without the stream). Afterwards the log answers for the \
        stream as for one that never existed (exit 66), and a second forget of it exits 66 as well. \
        The erased bytes stay in the log file's free pages until `flowlog compact`. The output names \
        the ids to pass to Segment's deletion and GA4's user deletion (the stream is their \
        anonymousId and client_id): events the trackers delivered before are theirs to delete. \
        A log below log schema 3 cannot forget: run `flowlog upgrade` once first.
        """)

    @Option(help: "The stream to forget.")
    var stream: String
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func run() throws {
        try CommandExecution.run { output in
            let log = try Composition.openLog(logOptions, access: .readWrite)
            guard let forgetting = log.capabilities.forgetting else {
                throw CLIFailure("\(log.location) cannot forget a stream: this FlowLog forgets on LMDB and PostgreSQL logs only. Nothing was changed.", .usage)
            }
            let forgotten = try forgetting.forget(stream: stream)
            if format.isJSON {
                output.json { json in
                    json.beginObject()
                    json.key("stream"); json.string(forgotten.stream)
                    json.key("events"); json.int(forgotten.events)
                    json.key("firstPosition"); json.int(forgotten.firstPosition)
                    json.key("lastPosition"); json.int(forgotten.lastPosition)
                    json.key("correlationIds"); json.beginArray()
                    for id in forgotten.correlationIds { json.string(id) }
                    json.endArray()
                    json.key("segment"); json.beginObject(); json.key("anonymousId"); json.string(forgotten.stream); json.endObject()
                    json.key("ga4"); json.beginObject(); json.key("client_id"); json.string(forgotten.stream); json.endObject()
                    json.endObject()
                }
            } else {
                output.line("forgot stream \(forgotten.stream) in \(log.location): \(forgotten.events) events (positions \(forgotten.firstPosition)…\(forgotten.lastPosition)).")
                output.line("Ask the vendors to delete what they received: Segment anonymousId \(forgotten.stream), GA4 client_id \(forgotten.stream).")
                output.line("The erased bytes stay in the log file's free pages until `flowlog compact --db \(log.location)`.")
            }
        }
    }
}
