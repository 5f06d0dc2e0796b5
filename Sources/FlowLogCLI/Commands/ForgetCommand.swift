import ArgumentParser
import Deciding
import FlowLogBasics
import FlowLogStore
import Foundation

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
            (its orders keep their totals, without the stream or order id)\(Program.Help.forgetInFiles) Afterwards the log answers for the \
            stream as for one that never existed (exit 66), and a second forget of it exits 66 as well. \
            The erased bytes stay in the log file's free pages until `\(Program.name) compact`.\(Program.Help.forgetVendors) \
            A log below log schema 3 cannot forget: run `\(Program.name) upgrade` once first. Each forgotten \
            stream gets an event in the log's audit trail, the system stream flowlog:erasures (`log \
            --stream flowlog:erasures`; hidden from trackers, `streams` and exports unless asked for): \
            when, how many events, the reason, and with --key-file a keyed pseudonym of the stream id, \
            so that a second request for the same id answers "already forgotten" (exit 0). The reason \
            is kept in the log: it must not itself hold personal data.
            """)

    @Option(help: "The stream to forget.")
    var stream: String?
    @Option(
        name: .customLong("correlation-id"),
        help: ArgumentHelp(
            "Forget every stream whose events carry this correlation id (one conversation that spans sessions), all in one transaction.",
            valueName: "id"))
    var correlationId: String?
    @Option(
        help:
            "Why, for the audit trail, such as \"erasure request 2026-118\". Kept in the log: it must not itself hold personal data (no name, e-mail address or stream id)."
    )
    var reason = ""
    @Option(
        name: .customLong("key-file"),
        help: ArgumentHelp(
            "A file holding a secret key (16 bytes or more, kept outside the log): the audit trail then records HMAC-SHA256 of the stream id under it, and a second forget of the same id answers \"already forgotten\".",
            valueName: "path"))
    var keyFile: String?
    @Option(help: Program.Help.forgetFolder)
    var trackerDir: String?
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func validate() throws {
        guard (stream == nil) != (correlationId == nil) else {
            throw ValidationError("Give either --stream S or --correlation-id C (the stream, or every stream of one conversation, to forget).")
        }
        if let stream, SystemStreams.isReserved(stream) {
            throw ValidationError("\(stream) is one of the log's own streams (\(SystemStreams.reservedPrefix)…), which are never forgotten.")
        }
        if let problem = ErasureAudit.problem(withReason: reason, naming: stream.map { [$0] } ?? []) {
            throw ValidationError("--reason \(problem).")
        }
    }

    func run() throws {
        try CommandExecution.run { output in
            let log = try Composition.openLog(logOptions, access: .readWrite)
            guard let forgetting = log.capabilities.forgetting else {
                throw CLIFailure("\(log.location) cannot forget a stream: only LMDB and PostgreSQL logs can. Nothing was changed.", .usage)
            }
            // No tracker runner may append to a tracker file while it is rewritten: busy (exit 75)
            // before anything is forgotten.
            let leases = try Program.leaseProjectorsWritingFiles(of: log)
            let key = try keyFile.map(Self.key(from:))
            if let stream, let key, try log.version(of: stream) == 0,
                let earlier = try Self.erasure(of: ErasureAudit.pseudonym(of: stream, key: key), in: log)
            {
                // Recognised by its pseudonym: the id itself is in the log no more.
                if format.isJSON {
                    output.json { json in
                        json.beginObject()
                        json.key("stream")
                        json.string(stream)
                        json.key("alreadyForgotten")
                        json.bool(true)
                        json.key("forgottenAt")
                        json.string(earlier.timestamp.rfc3339)
                        json.endObject()
                    }
                } else {
                    output.line(
                        "stream \(stream) was forgotten already, at \(earlier.timestamp.rfc3339) (position \(earlier.position) of \(SystemStreams.erasures)); nothing was changed."
                    )
                }
                return
            }
            let streams = try stream.map { [$0] } ?? Self.streams(carrying: correlationId!, in: log)
            // Checked first, then the tracker files, then the log: a forget killed between the two
            // leaves the stream in the log, and running it again finishes the job; the other way
            // round, the log would deny knowing the stream whose lines were still in the files.
            let schema = try log.settings().logSchema
            guard RecordLayout(logSchema: schema).isSalted else { throw ForgetRefusal.upgradeRequired(location: log.location, logSchema: schema) }
            for stream in streams where try log.version(of: stream) == 0 { throw ForgetRefusal.unknownStream(stream, location: log.location) }
            let files = try Program.forgetInProjectorFiles(streams: Set(streams), folder: trackerDir ?? Program.projectorFolder(for: logOptions))
            let forgotten = try forgetting.forget(streams: streams, audit: ErasureAudit.events(reason: reason, key: key, clock: SystemClock()))
            withExtendedLifetime(leases) {}
            if format.isJSON {
                for one in forgotten { output.json { json in FlowJSON.writeForgotten(one, into: &json) } }
            } else {
                for one in forgotten {
                    output.line(
                        "forgot stream \(one.stream) in \(log.location): \(one.events) events (positions \(one.firstPosition)…\(one.lastPosition)).")
                    if let notice = Program.vendorsToAsk(forgetting: one.stream) { output.line(notice) }
                }
                for (file, lines) in files { output.line("took \(lines) line\(lines == 1 ? "" : "s") of it out of \(file).") }
                output.line("The erased bytes stay in the log file's free pages until `\(Program.name) compact --db \(log.location)`.")
            }
        }
    }

    /// The key of `path`: its bytes, without one trailing line break.
    static func key(from path: String) throws -> [UInt8] {
        guard var bytes = FileManager.default.contents(atPath: path).map(Array.init) else {
            throw CLIFailure(
                "Cannot read the key file \(path); give a readable file holding the pseudonyms' key (16 bytes or more). Nothing was changed.",
                .noInput)
        }
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        guard bytes.count >= 16 else {
            throw CLIFailure(
                "The key file \(path) holds \(bytes.count) bytes; a pseudonym's key needs 16 or more (for example `head -c 32 /dev/urandom > \(path)`). Nothing was changed.",
                .usage)
        }
        return bytes
    }

    /// The audit event that recorded `pseudonym`, if any.
    static func erasure(of pseudonym: String, in log: any EventLog) throws -> RecordedEvent? {
        var found: RecordedEvent?
        try log.forEachEvent(inStream: SystemStreams.erasures, throughPosition: nil) { record in
            if case .system(.streamForgotten(let forgotten)) = record.event, forgotten.pseudonym == pseudonym { found = record }
            return found == nil
        }
        return found
    }

    /// Every stream with an event that carries `correlationId`, in the order first met.
    static func streams(carrying correlationId: String, in log: any EventLog) throws -> [String] {
        var found: [String] = []
        var seen = Set<String>()
        try log.forEachEvent(from: 1, through: nil) { event in
            if event.correlationId == correlationId, seen.insert(event.stream).inserted { found.append(event.stream) }
            return true
        }
        guard !found.isEmpty else {
            throw CLIFailure(
                "No event in \(log.location) carries correlation id \(correlationId) (none ever did, or its streams were forgotten already). Check the id; nothing was changed.",
                .noInput)
        }
        return found
    }
}
