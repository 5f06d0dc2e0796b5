import FlowDomain

/// The command processor's streams between batches, within a memory budget.
///
/// Keeping every stream a long `send` touched made its memory grow with the number of streams:
/// a state holds its stream's orders (and their ids, indexed for the duplicate-order check, then),
/// about 10 KB for a session with 75 orders, so 10,000 sessions kept 100 MB. Past the budget, the streams
/// used least recently are dropped; one that comes back is loaded again from its head (a few events
/// to fold). The budget is an estimate of the states' sizes, not a measurement.
///
/// Where the log keeps rows apart, a state with more than `StateUpkeep.rowsKeptWhole` kept rows, or
/// one that would not fit whole, is kept without its older ones (the count, the latest and a hash
/// of each older order's id stay: all that folding, fingerprints, heads and a new order id need),
/// so that 10,000 sessions of 70 orders take about 20 MB instead of 60; a command that needs the
/// rows themselves (`Decider.needsKeptRows`) has its stream loaded whole again
/// (`CommandProcessor.dropStatesMissingRows`).
struct StateCache {
    typealias Entry = (state: LogDecider.State, version: Int)

    let budget: Int
    private var entries: [String: (entry: Entry, cost: Int, stamp: Int, partial: Bool)] = [:]
    /// Streams in the order they were last put back, oldest first; an item whose stamp is not its
    /// stream's any more was superseded (or taken) and is passed over.
    private var recency: [(stream: String, stamp: Int)] = []
    private var oldest = 0
    private var clock = 0
    private(set) var cost = 0
    /// How many states lack some of their kept rows: while none does, no command needs a lookup
    /// to find out (`CommandProcessor.dropStatesMissingRows`).
    private(set) var partialCount = 0

    /// Whether a long or large state is kept without its older kept rows: only where the log keeps
    /// those rows apart from the states it stores (`LogCapabilities.keepsRowsApart`).
    var keepsLatestRowOnly = false

    init(budget: Int) {
        self.budget = budget
    }

    var count: Int { entries.count }

    subscript(stream: String) -> Entry? { entries[stream]?.entry }

    /// Whether the stream's cached state lacks some of its kept rows, without copying it.
    func isPartial(_ stream: String) -> Bool { entries[stream]?.partial ?? false }

    /// Moves the stream's state out (the caller puts it back when its batch is done).
    mutating func take(_ stream: String) -> Entry? {
        guard let removed = entries.removeValue(forKey: stream) else { return nil }
        uncount(removed)
        return removed.entry
    }

    mutating func put(_ entry: Entry, for stream: String) {
        var entry = entry
        if let replaced = entries[stream] { uncount(replaced) }
        clock += 1
        var size = StateUpkeep.estimatedCost(of: entry.state)
        // A short history stays whole (a whole state serves every command, and reloading one that
        // a command needs whole waits for its stream's write under way); a long one, or one that
        // would not fit, is slimmed.
        if keepsLatestRowOnly, StateUpkeep.isSlimmedForCache(entry.state) || cost + size > budget {
            StateUpkeep.slimForCache(&entry.state)
            size = StateUpkeep.estimatedCost(of: entry.state)
        }
        let partial = !StateUpkeep.holdsAllKeptRows(entry.state)
        entries[stream] = (entry, size, clock, partial)
        cost += size
        if partial { partialCount += 1 }
        recency.append((stream, clock))
        // Never the item just added: the newest state stays, even one larger than the budget.
        while cost > budget, oldest < recency.count - 1 {
            let (candidate, stamp) = recency[oldest]
            oldest += 1
            if let found = entries[candidate], found.stamp == stamp {
                entries[candidate] = nil
                uncount(found)
            }
        }
        if oldest > 1_024, oldest * 2 > recency.count {
            recency.removeFirst(oldest)
            oldest = 0
        }
    }

    /// Takes a state that leaves the cache out of its totals.
    private mutating func uncount(_ gone: (entry: Entry, cost: Int, stamp: Int, partial: Bool)) {
        cost -= gone.cost
        if gone.partial { partialCount -= 1 }
    }

    mutating func remove(_ stream: String) {
        _ = take(stream)
    }
}
