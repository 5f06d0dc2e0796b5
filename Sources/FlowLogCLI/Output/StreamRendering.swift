import FlowLog

/// One stream of `flowlog streams`: its version, the positions of its first and last events and
/// the time of its last.
struct StreamListing {
    let stream: String
    let version: Int
    let firstPosition: Int
    let lastPosition: Int
    let lastTimestamp: Timestamp
}

/// `flowlog streams`: a table for people, or one JSON object a stream.
enum StreamRendering {
    static func json(_ listing: StreamListing, into json: inout JSONWriter) {
        json.object { json in
            json.field("stream", listing.stream); json.field("version", listing.version)
            json.field("firstPosition", listing.firstPosition); json.field("lastPosition", listing.lastPosition)
            json.key("lastTimestamp"); json.timestamp(listing.lastTimestamp)
        }
    }

    static func table(_ listings: [StreamListing]) -> [String] {
        var table = TextTable(header: ["STREAM", "VERSION", "FIRST", "LAST", "LAST EVENT"], rightAligned: [1, 2, 3])
        for listing in listings {
            table.add([TerminalText.escaped(listing.stream), String(listing.version), String(listing.firstPosition),
                       String(listing.lastPosition), listing.lastTimestamp.rfc3339])
        }
        return table.lines(empty: "(no streams)")
    }
}
