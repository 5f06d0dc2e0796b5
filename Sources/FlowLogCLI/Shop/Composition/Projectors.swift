import FlowLogBasics
import FlowLogProjections
import FlowLogStore
import FlowLogSystem
import Foundation

extension Composition {
    static let trackerNames = ["tracker.segment", "tracker.ga4"]
    static let projectorNames = ["storage"] + trackerNames

    /// The trackers' leases, held while their files are rewritten (`forget`, `retain`, `serve`'s
    /// forgetting): `FlowLogError.busy` naming a running tracker, before anything changes.
    static func leaseTrackers(of log: any LogStore) throws -> [any ProjectorLease] {
        try trackerPartNames(of: log).map { try log.leaseProjector($0) }
    }

    /// The projectors, wired to the log and the trackers' files or endpoints. `cooperative`: the
    /// vendor sinks hand their retry pauses back to the runner (`ProjectionRunner.catchUpEach`)
    /// instead of sleeping through them, so one collector down does not hold up the others.
    /// `leaseHolds`: asked before every request to a vendor (`LeaseGatedTransport`), for a runner
    /// whose leases may expire.
    /// `partitions`: how many parts each tracker is split into (`tracker.segment` → 4), one
    /// projector per part, each with a sink of its own; a tracker not named is one. `trackerLog`:
    /// the log the trackers read and checkpoint through, when not `log` itself (a `SerializedLog`
    /// shared by threads).
    static func projectors(
        _ log: any LogStore, tracker: TrackerOptions, options: LogOptions, cooperative: Bool = false, leaseHolds: ((String) -> Bool)? = nil,
        partitions: [String: Int] = [:], trackerLog: (any EventLog & CheckpointStore)? = nil
    ) throws -> [any Projector] {
        let folder = try trackerFolder(tracker, options: options)
        return try [StorageProjector(store: log) as any Projector]
            + tracker.services().flatMap { service in
                let count = partitions[TrackerProjector.name(of: service)] ?? 1
                return try ProjectorPartition.all(count).map { partition in
                    let part = count > 1 ? partition : nil
                    let name = part.map { $0.name(of: TrackerProjector.name(of: service)) } ?? TrackerProjector.name(of: service)
                    let sink = try sink(for: service, tracker: tracker, folder: folder, leaseHolds: leaseHolds, projector: name)
                    (sink as? VendorSink)?.pausesInsteadOfSleeping = cooperative
                    return TrackerProjector(service: service, sink: sink, log: trackerLog ?? log, partition: part) as any Projector
                }
            }
    }

    /// How many parts each tracker is split into, as the log keeps it.
    static func trackerPartitions(of log: any CheckpointStore) throws -> [String: Int] {
        Dictionary(uniqueKeysWithValues: try trackerNames.map { ($0, try ProjectorPartitioning.count(of: $0, in: log)) })
    }

    /// The names of the trackers' parts, as the log keeps them split (each tracker's own name when not).
    static func trackerPartNames(of log: any CheckpointStore) throws -> [String] {
        try trackerNames.flatMap { ProjectorPartitioning.names(of: $0, count: try ProjectorPartitioning.count(of: $0, in: log)) }
    }

    /// The tracker folder, created if need be; refused inside an LMDB environment.
    static func trackerFolder(_ tracker: TrackerOptions, options: LogOptions) throws -> String {
        let folder = tracker.folder(for: options)
        // An NDJSON sink appends, and cuts a torn last line: inside a log (or through a link into
        // one) that would write into its database files, so such a folder or file is refused.
        let files = [folder] + ["segment", "ga4"].map { "\(folder)/\($0).ndjson" }
        for file in files {
            if let environment = OutputPath.enclosingLMDBEnvironment(of: file) {
                throw CLIFailure(
                    "The tracker's \(file == folder ? "folder" : "file") \(file) is inside \(environment), an LMDB environment (a FlowLog log, or another program's database); analytics messages are never written there. Choose another folder with --tracker-dir; nothing was written.",
                    .usage)
            }
        }
        if mkdir(folder, 0o755) != 0 && errno != EEXIST {
            throw CLIFailure(
                "Cannot create the tracker folder \(folder): \(String(cString: strerror(errno))). Choose another with --tracker-dir.", .cannotCreate)
        }
        return folder
    }

    /// A file sink, or the vendor's endpoint with its credentials.
    static func sink(
        for service: any AnalyticsService, tracker: TrackerOptions, folder: String, leaseHolds: ((String) -> Bool)? = nil, projector: String? = nil
    ) throws -> any TrackerSink {
        guard let endpoint = try endpoint(for: service.name, tracker: tracker) else {
            return NDJSONFileSink(path: "\(folder)/\(service.name).ndjson")
        }
        let gated = projector ?? TrackerProjector.name(of: service)
        let transport = leaseHolds.map { LeaseGatedTransport(HTTPTransports.make(), projector: gated, holds: $0) }
        return VendorSink(
            endpoint: endpoint, transport: transport ?? HTTPTransports.make(), policy: RetryPolicy(deadline: tracker.deliveryDeadline),
            journal: DeliveryJournal(folder: folder, tracker: service.name))
    }

    /// The endpoint of tracker `name` (`segment`, `ga4`), or `nil` when it writes a file.
    static func endpoint(for name: String, tracker: TrackerOptions) throws -> VendorEndpoint? {
        switch name {
        case "segment":
            guard let text = tracker.segmentURL, let url = URL(string: text) else { return nil }
            let key = try secret(
                file: tracker.writeKeyFile, option: "--write-key-file", environment: "FLOWLOG_SEGMENT_WRITE_KEY", what: "the Segment write key")
            return .segment(url: url, writeKey: key)
        case "ga4":
            guard let text = tracker.ga4URL, let url = URL(string: text), let measurementId = tracker.ga4MeasurementId else { return nil }
            let apiSecret = try secret(
                file: tracker.ga4APISecretFile, option: "--ga4-api-secret-file", environment: "FLOWLOG_GA4_API_SECRET", what: "the GA4 api_secret")
            return .ga4(url: url, measurementId: measurementId, apiSecret: apiSecret)
        default:
            return nil
        }
    }

    /// A credential from its file (first line, trimmed) or the environment; never echoed.
    static func secret(file: String?, option: String, environment: String, what: String) throws -> String {
        if let file {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw CLIFailure(
                    "Cannot read \(what) from \(option) \(TerminalText.escaped(file)): no such readable file. Give a file that holds it on its first line.",
                    .noInput)
            }
            let value = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard !value.isEmpty else { throw CLIFailure("\(option) \(TerminalText.escaped(file)) is empty: put \(what) on its first line.", .usage) }
            return value
        }
        if let value = ProcessInfo.processInfo.environment[environment]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty {
            return value
        }
        throw CLIFailure(
            "Posting to the vendor needs \(what): give \(option) PATH (a file holding it) or set \(environment). It is never taken on the command line. Nothing was sent.",
            .usage)
    }
}

extension TrackerOptions {
    /// The trackers' folder: `--tracker-dir`, or the default beside the log.
    func folder(for log: LogOptions) -> String {
        trackerDir ?? Self.defaultFolder(for: log)
    }

    /// `LOG-tracker` beside the log (`./flowlog-tracker` for a PostgreSQL log).
    static func defaultFolder(for log: LogOptions) -> String {
        // A PostgreSQL log has no folder to stand beside.
        if case .postgres = Backend(log.logPath) { return "./flowlog-tracker" }
        var path = log.logPath
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path + "-tracker"
    }
}
