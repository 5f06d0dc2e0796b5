import FlowLogStore

/// What the look-ahead hands over with a read: the states of the streams that have events, and
/// apart, which of the read's commands is the first to name a stream that has none, whose state is
/// the initial one, made when that command takes it.
///
/// A read of new sessions is one commit's worth of streams without events. Carried as states, the
/// reads queued for the writer held 8,192 of them, and a `send` into a new log went 16 MB further;
/// carried as a set of names, each such stream's name was hashed twice more (into the set on the
/// reading thread, out of it on the deciding one), a tenth of a new session's cost. A mark by the
/// command's place costs a byte and no hash: the processor asks with the place of the command that
/// takes the stream, and a command that is not the marked one (its first was answered without
/// deciding) finds no mark and loads the stream as it loads any other.
struct LoadedAhead {
    typealias Entry = (state: LogDecider.State, version: Int)

    private var states: [String: Entry] = [:]
    /// By the place of each command of the batch: whether it is the first to name a stream without
    /// events. Empty while none is marked.
    private var firstWithoutEvents: [Bool] = []
    private var marked = 0

    var isEmpty: Bool { states.isEmpty && marked == 0 }
    /// How many streams it holds, with events or without.
    var count: Int { states.count + marked }

    /// Whether the command at `place` is the first to name a stream without events (and has not
    /// taken its state yet).
    func marksWithoutEvents(at place: Int) -> Bool { place < firstWithoutEvents.count && firstWithoutEvents[place] }

    /// The state of a stream with events, loaded ahead.
    subscript(stream: String) -> Entry? { states.isEmpty ? nil : states[stream] }

    mutating func add(_ entry: Entry, for stream: String) { states[stream] = entry }

    /// The command at `place` (of `commands` in the batch) is the first to name a stream the log
    /// holds no events of.
    mutating func markWithoutEvents(at place: Int, commands: Int) {
        if firstWithoutEvents.isEmpty { firstWithoutEvents = Array(repeating: false, count: commands) }
        if !firstWithoutEvents[place] { marked += 1 }
        firstWithoutEvents[place] = true
    }

    /// Moves out the state of `stream`, which the command at `place` names, so that deciding
    /// changes it in place: a state loaded ahead, or the initial one where that command is the first
    /// to name a stream without events. Each is taken once; the processor keeps what it loaded
    /// ahead for a batch's first round only (`CommandProcessor.handle`).
    mutating func take(_ stream: String, at place: Int) -> Entry? {
        if !states.isEmpty, let entry = states.removeValue(forKey: stream) { return entry }
        guard marksWithoutEvents(at: place) else { return nil }
        firstWithoutEvents[place] = false
        marked -= 1
        return (LogDecider.initialState, 0)
    }

    /// Forgets a stream's state (one a command needs whole, where it came slim).
    mutating func drop(_ stream: String) { states[stream] = nil }

    /// Both together, `other`'s commands after this one's `commands`; where both hold a stream's
    /// state, this one's.
    mutating func append(_ other: LoadedAhead, after commands: Int) {
        states.merge(other.states) { first, _ in first }
        guard other.marked > 0 else { return }
        // Marks reach no further than their own commands (a slice's may run on to its part's end).
        if firstWithoutEvents.count > commands { firstWithoutEvents.removeLast(firstWithoutEvents.count - commands) }
        firstWithoutEvents += repeatElement(false, count: commands - firstWithoutEvents.count)
        firstWithoutEvents += other.firstWithoutEvents
        marked += other.marked
    }
}
