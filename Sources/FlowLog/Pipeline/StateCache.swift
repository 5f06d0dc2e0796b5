import FlowDomain
import FlowLogStore

/// The command processor's streams between batches, within a memory budget.
///
/// Keeping every stream a long `send` touched made its memory grow with the number of streams:
/// a state holds its stream's orders (and their ids, indexed for the duplicate-order check, then),
/// kilobytes for a session with tens of orders, so a log of thousands of such sessions took `send`
/// far past its memory bound. Past the budget, the streams used least recently are dropped; one
/// that comes back is loaded again from its head (a few events to fold). The budget is an estimate
/// of the states' sizes, not a measurement.
///
/// Where the log keeps rows apart, a state with more than `StateUpkeep.rowsKeptWhole` kept rows, or
/// one that would not fit whole, is kept without its older ones (the count, the latest and a hash
/// of each older order's id stay: all that folding, fingerprints, heads and a new order id need),
/// so that sessions with many orders take a fraction of their whole size; a command that needs the
/// rows themselves (`Decider.needsKeptRows`) has its stream loaded whole again
/// (`CommandProcessor.dropStatesMissingRows`).
struct StateCache {
    typealias Entry = (state: LogDecider.State, version: Int)

    /// A cached state, with what the budget and eviction need; `stamp` 0 marks an empty slot.
    private struct Slot {
        var stream: String
        var entry: Entry
        var cost: Int
        var stamp: Int
        var partial: Bool
    }

    let budget: Int
    /// Each stream's slot. A name stays when its state leaves (taken or dropped) and is passed
    /// over once its slot is empty or holds another stream; the table is rebuilt of the cached
    /// streams when such names outnumber them. Removing names from a `Dictionary` rehashes the
    /// names after each, and one command into each of a million new streams (an insertion and an
    /// eviction each, a take and a put back for every stream of a round) spent a fifth of the
    /// deciding thread in this table when it held the states and removed names.
    private var index: [String: Int] = [:]
    /// States by slot, kept out of `index` so that growing it moves names and numbers only.
    private var slots: [Slot] = []
    /// Empty slots, reused before `slots` grows.
    private var free: [Int] = []
    /// Slots in the order they were last filled, oldest first; an item whose stamp is not its
    /// slot's any more was superseded (or taken, or reused) and is passed over.
    private var recency: [(slot: Int, stamp: Int)] = []
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

    /// How many streams have a state cached.
    var count: Int { slots.count - free.count }

    subscript(stream: String) -> Entry? { slot(of: stream).map { slots[$0].entry } }

    /// Whether the stream's cached state lacks some of its kept rows, without copying it.
    func isPartial(_ stream: String) -> Bool { slot(of: stream).map { slots[$0].partial } ?? false }

    /// Moves the stream's state out (the caller puts it back when its batch is done).
    mutating func take(_ stream: String) -> Entry? {
        slot(of: stream).map { release($0) }
    }

    mutating func put(_ entry: Entry, for stream: String) {
        var entry = entry
        clock += 1
        var size = Self.cost(of: entry.state)
        // A short history stays whole (a whole state serves every command, and reloading one that
        // a command needs whole waits for its stream's write under way); a long one, or one that
        // would not fit, is slimmed.
        if keepsLatestRowOnly, StateUpkeep.isSlimmedForCache(entry.state) || cost + size > budget {
            StateUpkeep.slimForCache(&entry.state)
            size = Self.cost(of: entry.state)
        }
        let partial = !StateUpkeep.holdsAllKeptRows(entry.state)
        let filled = Slot(stream: stream, entry: entry, cost: size, stamp: clock, partial: partial)
        let slot: Int
        if let found = index.index(forKey: stream) {
            let named = index.values[found]
            if slots[named].stamp > 0, slots[named].stream == stream {
                slot = named
                drop(slot)
            } else {
                slot = vacantSlot()
            }
            index.values[found] = slot
        } else {
            slot = vacantSlot()
            index[stream] = slot
        }
        if slot == slots.count {
            slots.append(filled)
        } else {
            free.removeLast()
            slots[slot] = filled
        }
        cost += size
        if partial { partialCount += 1 }
        recency.append((slot, clock))
        // Never the item just added: the newest state stays, even one larger than the budget.
        while cost > budget, oldest < recency.count - 1 {
            let (candidate, stamp) = recency[oldest]
            oldest += 1
            if slots[candidate].stamp == stamp { drop(candidate) }
        }
        if oldest > 1_024, oldest * 2 > recency.count {
            recency.removeFirst(oldest)
            oldest = 0
        }
        if index.count > 2 * count + 1_024 { rebuildIndex() }
    }

    mutating func remove(_ stream: String) {
        _ = take(stream)
    }

    /// What a state costs the budget: its estimated size and what the cache spends to hold it (its
    /// slot, its name in `index` and `recency`, the dictionary's spare room). Without the latter, new
    /// sessions of a few hundred bytes of state each filled the budget with far more states than it
    /// meant to hold, and what the cache spent on them, uncounted, raised a `send`'s peak memory;
    /// long sessions, whose states run to kilobytes, hardly notice it.
    static func cost(of state: LogDecider.State) -> Int { StateUpkeep.estimatedCost(of: state) + 256 }

    /// The slot holding the stream's state, if one does.
    private func slot(of stream: String) -> Int? {
        guard let slot = index[stream], slots[slot].stamp > 0, slots[slot].stream == stream else { return nil }
        return slot
    }

    /// The slot the next state goes to: the last one emptied (`put` takes it off `free`), or a new one.
    private func vacantSlot() -> Int { free.last ?? slots.count }

    /// Empties a slot: its state moves out of the cache and its totals; the name stays in `index`.
    private mutating func release(_ slot: Int) -> Entry {
        vacate(slot)
        var gone = Slot(stream: "", entry: (LogDecider.initialState, 0), cost: 0, stamp: 0, partial: false)
        swap(&gone, &slots[slot])
        return gone.entry
    }

    /// `release` for a state nobody wants back (evicted, or replaced): released in place, where
    /// `release` copied it out first. A million new sessions evict a million states.
    private mutating func drop(_ slot: Int) {
        vacate(slot)
        slots[slot].stamp = 0
        slots[slot].stream = ""
        slots[slot].entry.state = LogDecider.initialState
    }

    /// Takes a slot's state out of the totals and offers the slot for reuse.
    private mutating func vacate(_ slot: Int) {
        cost -= slots[slot].cost
        if slots[slot].partial { partialCount -= 1 }
        free.append(slot)
    }

    /// `index` of the cached streams only.
    private mutating func rebuildIndex() {
        var rebuilt: [String: Int] = [:]
        rebuilt.reserveCapacity(count)
        for slot in slots.indices where slots[slot].stamp > 0 { rebuilt[slots[slot].stream] = slot }
        index = rebuilt
    }
}
