/// Numbers the streams of a walk in position order from 0 as they first appear, so that a walk can
/// keep each stream's state in an array. A session's events come in runs: comparing with the last
/// stream costs less than hashing, so the dictionary is asked only when the stream changes.
package struct StreamSlots {
    private var slots: [String: Int] = [:]
    /// Each slot's stream.
    package private(set) var streams: [String] = []
    private var last: (stream: String, slot: Int)?

    package init() {}

    /// The stream's slot, and whether the stream was new (its slot is then `streams.count - 1`).
    package mutating func slot(of stream: String) -> (slot: Int, isNew: Bool) {
        if let last, last.stream == stream { return (last.slot, false) }
        let found: (slot: Int, isNew: Bool)
        if let known = slots[stream] {
            found = (known, false)
        } else {
            found = (streams.count, true)
            slots[stream] = found.slot
            streams.append(stream)
        }
        last = (stream, found.slot)
        return found
    }
}
