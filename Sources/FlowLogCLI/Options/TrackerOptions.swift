import ArgumentParser
import Foundation

/// Where the trackers' analytics calls go: NDJSON files beside the log, unless --tracker-dir or an
/// HTTP batch endpoint says otherwise.
struct TrackerOptions: ParsableArguments {
    @Option(help: "The folder for the analytics calls (one NDJSON file per service; default: LOG-tracker beside the log).")
    var trackerDir: String?

    @Option(help: "Post the Segment calls to this batch endpoint (with retries) instead of a file.")
    var segmentURL: String?

    @Option(help: "Post the snake_case calls to this batch endpoint (with retries) instead of a file.")
    var snakeURL: String?

    /// Checked before anything is opened or written: a collector FlowLog cannot post to would
    /// otherwise only show up after `demo` or `projections run` had done their work.
    func validate() throws {
        for (name, value) in [("--segment-url", segmentURL), ("--snake-url", snakeURL)] {
            if let value, let problem = Self.problem(with: value) {
                throw ValidationError("\(name) '\(TerminalText.escaped(value))' \(problem). Nothing was written.")
            }
        }
    }

    /// Why `HTTPBatchSink` cannot post to `text`, and what to give instead; `nil` when it can.
    static func problem(with text: String) -> String? {
        let example = "give an http:// URL, such as http://localhost:8080/v1/batch"
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else { return "is not a URL: \(example)" }
        if scheme == "https" {
            return "uses HTTPS: HTTPS is not supported yet (it comes with the analytics collectors); give the http:// URL of a local forwarding proxy in front of the collector, such as http://localhost:8080/v1/batch"
        }
        guard scheme == "http" else { return "is not an http:// URL (its scheme is \(scheme)): \(example)" }
        guard let host = url.host, !host.isEmpty else { return "names no host: \(example)" }
        if let port = url.port, !(1...65535).contains(port) { return "names port \(port), which is not 1 through 65535: \(example)" }
        return nil
    }

    func folder(for log: LogOptions) -> String {
        if let trackerDir { return trackerDir }
        // A PostgreSQL log has no folder to stand beside.
        if case .postgres = Backend(log.logPath) { return "./flowlog-tracker" }
        var path = log.logPath
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path + "-tracker"
    }
}
