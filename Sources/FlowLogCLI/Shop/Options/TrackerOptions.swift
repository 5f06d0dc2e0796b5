import ArgumentParser
import FlowLogProjections
import Foundation

/// Where the trackers' messages go: NDJSON files beside the log, unless --tracker-dir or a
/// vendor endpoint says otherwise. Credentials come from files or the environment only, never from
/// the command line (where `ps` and shell histories show them).
struct TrackerOptions: ParsableArguments {
    @Option(
        help:
            "The folder for the trackers' files: messages (NDJSON, one file per tracker without an endpoint), dead letters and delivery counters (default: LOG-tracker beside the log)."
    )
    var trackerDir: String?

    @Option(
        help: ArgumentHelp(
            "Post the Segment messages to this batch endpoint instead of a file (Segment: https://api.segment.io/v1/batch).", valueName: "url"))
    var segmentURL: String?

    @Option(help: ArgumentHelp("A file holding the Segment write key (else FLOWLOG_SEGMENT_WRITE_KEY).", valueName: "path"))
    var writeKeyFile: String?

    @Option(help: "Segment messages per request, 1 through 2500.")
    var batchSize: Int = 100

    @Option(
        name: .customLong("ga4-url"),
        help: ArgumentHelp(
            "Post the GA4 events to this Measurement Protocol collect URL instead of a file (GA4: https://www.google-analytics.com/mp/collect).",
            valueName: "url"))
    var ga4URL: String?

    @Option(name: .customLong("ga4-measurement-id"), help: ArgumentHelp("The GA4 web stream's measurement id (G-…).", valueName: "id"))
    var ga4MeasurementId: String?

    @Option(
        name: .customLong("ga4-api-secret-file"),
        help: ArgumentHelp("A file holding the GA4 Measurement Protocol api_secret (else FLOWLOG_GA4_API_SECRET).", valueName: "path"))
    var ga4APISecretFile: String?

    @Option(help: "The ISO 4217 currency of every amount (FlowLog keeps cents).")
    var currency: String = "USD"

    @Option(
        help: ArgumentHelp(
            "Seconds a tracker keeps retrying one request (429, 5xx, no answer) before it stops and resumes there next run.", valueName: "seconds"))
    var deliveryDeadline: Double = 3_600

    @Flag(help: "Allow http:// endpoints that are not on this machine (messages and credentials then travel unencrypted).")
    var allowInsecure = false

    /// Checked before anything is opened or written: an endpoint FlowLog cannot post to would
    /// otherwise only show up after `demo` or `projections run` had done their work.
    func validate() throws {
        for (name, value) in [("--segment-url", segmentURL), ("--ga4-url", ga4URL)] {
            if let value, let problem = Self.problem(with: value, allowInsecure: allowInsecure) {
                throw ValidationError("\(name) '\(TerminalText.escaped(value))' \(problem). Nothing was written.")
            }
        }
        if !(1...2_500).contains(batchSize) {
            throw ValidationError("--batch-size \(batchSize) is not 1 through 2500 (Segment takes at most 2,500 messages a request); give, say, 100.")
        }
        if let problem = AnalyticsSettings.problem(withCurrency: currency) {
            throw ValidationError("--currency '\(TerminalText.escaped(currency))' \(problem).")
        }
        // Finite and at most 30 days: infinity or NaN would retry forever (or never), and a tracker
        // that should resume next run would hold its lease without end.
        if !(deliveryDeadline > 0 && deliveryDeadline <= 2_592_000) {
            throw ValidationError(
                "--delivery-deadline takes seconds from above 0 through 2592000 (30 days); got \(deliveryDeadline). Give, say, 3600 (an hour).")
        }
        if let url = ga4URL, URL(string: url).map({ !$0.path.hasSuffix("/mp/collect") }) ?? false {
            throw ValidationError(
                "--ga4-url '\(TerminalText.escaped(url))' does not end in /mp/collect: give the Measurement Protocol collect URL, such as https://www.google-analytics.com/mp/collect."
            )
        }
        if ga4URL != nil, ga4MeasurementId?.isEmpty ?? true {
            throw ValidationError("--ga4-url needs --ga4-measurement-id (the web stream's G-… id, from GA4's Admin > Data streams).")
        }
    }

    /// Why FlowLog cannot post to `text`, and what to give instead; `nil` when it can.
    static func problem(with text: String, allowInsecure: Bool) -> String? {
        let example = "give an https:// URL, or http:// on this machine, such as http://127.0.0.1:8080/v1/batch"
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else { return "is not a URL: \(example)" }
        guard scheme == "http" || scheme == "https" else { return "is not an http:// or https:// URL (its scheme is \(scheme)): \(example)" }
        guard let host = url.host, !host.isEmpty else { return "names no host: \(example)" }
        if let port = url.port, !(1...65535).contains(port) { return "names port \(port), which is not 1 through 65535: \(example)" }
        if url.user != nil || url.password != nil {
            return "carries credentials: give the write key or api_secret in a file or the environment instead (see --help)"
        }
        if scheme == "http", !allowInsecure, !isLoopback(host) {
            return
                "is plain http:// to another machine, which would send the messages and the credentials unencrypted: use https://, or give --allow-insecure"
        }
        if scheme == "https", !HTTPTransports.supportsHTTPS {
            return
                "uses HTTPS, which this build of flowlog (built without the Network trait) cannot speak: build the full flowlog (scripts/build), or give the http:// URL of a collector or forwarding proxy on this machine"
        }
        return nil
    }

    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }

    var settings: AnalyticsSettings { AnalyticsSettings(currency: currency) }

    /// The two trackers' services.
    func services() -> [any AnalyticsService] {
        [
            SegmentService(settings: settings, library: LibraryInfo(version: FlowLogVersion.release), batchSize: batchSize),
            GA4Service(settings: settings),
        ]
    }
}
