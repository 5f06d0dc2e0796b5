import FlowLog
import FlowDomain

/// Every stream's final state from one walk of the log in position order (`replay --summary`).
///
/// Walking the log reads its records where they lie, one after another; walking it stream by
/// stream read them through the stream index in scattered order, one random read per event (6×
/// slower on a log of 2,000 interleaved sessions). The price is that every stream's state is kept
/// until the walk ends: memory grows with the number of streams (a cart, a navigation and the
/// orders of each), never with the number of events.
public enum StreamSummaries {
    public struct Summary: Sendable {
        public let stream: String
        public let state: LogDecider.State
        public let version: Int
    }

    /// The final states, in stream id order (byte order, as the log lists streams).
    public static func finalStates(of source: any ReplaySource, progress: Progress? = nil) throws -> [Summary] {
        var slots = StreamSlots()
        var states: [LogDecider.State] = []
        var versions: [Int] = []
        var count = 0
        try source.forEachEvent(stream: nil, from: 1, to: nil) { record in
            let (slot, isNew) = slots.slot(of: record.stream)
            if isNew {
                states.append(LogDecider.initialState)
                versions.append(0)
            }
            LogDecider.evolve(&states[slot], record.event)
            versions[slot] = record.version
            count += 1
            if count & 0xFFF == 0 { progress?.advance(to: record.position) }
            return true
        }
        progress?.finish()
        let streams = slots.streams
        return streams.indices.sorted { streams[$0].utf8.lexicographicallyPrecedes(streams[$1].utf8) }
            .map { Summary(stream: streams[$0], state: states[$0], version: versions[$0]) }
    }
}
