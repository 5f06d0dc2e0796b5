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

    func validate() throws {
        for (name, value) in [("--segment-url", segmentURL), ("--snake-url", snakeURL)] {
            if let value, URL(string: value)?.scheme?.hasPrefix("http") != true {
                throw ValidationError("\(name) '\(TerminalText.escaped(value))' is not an http(s) URL.")
            }
        }
    }

    func folder(for log: LogOptions) -> String {
        if let trackerDir { return trackerDir }
        var path = log.logPath
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path + "-tracker"
    }
}
