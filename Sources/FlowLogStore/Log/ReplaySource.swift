/// Where replayed events come from: a log, or an NDJSON export read directly (no import needed).
public protocol ReplaySource {
    /// The events in position order, restricted to `stream` when given, and to positions `from...to`.
    func forEachEvent(stream: String?, from: Int, to: Int?, _ body: (RecordedEvent) throws -> Bool) throws

    /// A stream's state just before global position `position` (the starting point of a replay from there).
    func state(ofStream stream: String, before position: Int) throws -> LogDecider.State
}
