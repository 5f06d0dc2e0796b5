public import FlowLogBasics

/// One stream as a list shows it (`flowlog streams`, `GET /streams`, `retain`'s candidates): its
/// version, the positions of its first and last events and the time of its last.
public struct StreamListing: Equatable, Sendable {
    public let stream: String
    public let version: Int
    public let firstPosition: Int
    public let lastPosition: Int
    public let lastTimestamp: Timestamp

    public init(stream: String, version: Int, firstPosition: Int, lastPosition: Int, lastTimestamp: Timestamp) {
        (self.stream, self.version, self.firstPosition, self.lastPosition, self.lastTimestamp) = (
            stream, version, firstPosition, lastPosition, lastTimestamp
        )
    }
}

extension EventLog {
    /// The listings of the streams `forEachStream(from:_:)` walks, each read through the stream
    /// index (its first and last events: two lookups a stream). A stream forgotten after its page
    /// of the stream table was read has no events left and is passed over.
    public func forEachStreamListingByLookup(from start: String?, _ body: (StreamListing) throws -> Bool) throws {
        try forEachStream(from: start) { stream, version in
            guard let first = try event(inStream: stream, version: 1), let last = try event(inStream: stream, version: version) else { return true }
            return try body(
                StreamListing(
                    stream: stream, version: version, firstPosition: first.position, lastPosition: last.position, lastTimestamp: last.timestamp))
        }
    }
}
