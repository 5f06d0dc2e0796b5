import Deciding
import FlowLogBasics
import FlowLogStore

/// `flowlog streams`: a table for people, or one JSON object a stream.
enum StreamRendering {
    static func json(_ listing: StreamListing, into json: inout JSONWriter) {
        json.object { json in
            json.field("stream", listing.stream)
            json.field("version", listing.version)
            json.field("firstPosition", listing.firstPosition)
            json.field("lastPosition", listing.lastPosition)
            json.key("lastTimestamp")
            json.timestamp(listing.lastTimestamp)
        }
    }

    /// Rows written at a time: a table of a million sessions is never held whole.
    static let rowsPerWrite = 4_096

    /// The widest cell of each column over every stream `streams` will list: one walk of the stream
    /// table (names and versions; positions are at most the log's last).
    static func widths(of log: any EventLog, system: Bool) throws -> [Int] {
        var (name, version) = (0, 0)
        try log.forEachStream(from: nil) { stream, streamVersion in
            if system || !SystemStreams.isReserved(stream) {
                name = max(name, TerminalText.escaped(stream).count)
                version = max(version, streamVersion)
            }
            return true
        }
        let position = String(try log.lastPosition()).count
        return [name, String(version).count, position, position, 0]
    }

    static func table(widths: [Int]) -> TextTable {
        TextTable(header: ["STREAM", "VERSION", "FIRST", "LAST", "LAST EVENT"], rightAligned: [1, 2, 3], minimumWidths: widths)
    }

    static func row(_ listing: StreamListing) -> [String] {
        [
            TerminalText.escaped(listing.stream), String(listing.version), String(listing.firstPosition),
            String(listing.lastPosition), listing.lastTimestamp.rfc3339,
        ]
    }
}
