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
/// Where the log keeps rows apart, a state with more than `LogDecider.rowsKeptWhole` kept rows, or
/// one that would not fit whole, is kept without its older ones (the count, the latest and a hash
/// of each older order's id stay: all that folding, fingerprints, heads and a new order id need),
/// so that sessions with many orders take a fraction of their whole size; a command that needs the
/// rows themselves (`Decider.needsKeptRows`) has its stream loaded whole again
/// (`CommandProcessor.dropStatesMissingRows`).
struct StateCache {
    typealias Entry = (state: LogDecider.State, version: Int)

    /// A slot of `slots`: a cached state, with what the budget and eviction need, or none.
    private struct Slot {
        var stream: String
        /// The name's hash: where the search for its bucket begins when the state is dropped.
        var hash: Int
        /// `nil`: the slot is empty; releasing a state is setting this, without a placeholder state.
        /// The state and its version are fields of their own, not an `Entry`: an optional tuple was
        /// released through the runtime's generic tuple destroyer, once for every evicted state.
        var state: LogDecider.State?
        var version: Int
        var cost: Int
        var stamp: Int
        var partial: Bool
    }

    let budget: Int
    /// The cached streams' names: an open-addressed table (linear probing), at most three quarters
    /// full, each bucket the low 32 bits of a name's hash above its slot's number plus one (0: an
    /// empty bucket), so that a probe compares hashes without reading the slots, and a name leaves
    /// with its state by shifting the names after it back, without hashing them again.
    /// A `Dictionary` of names rehashed the names after each one removed, or, keeping the names of
    /// dropped states until a rebuild, grew and was rebuilt again and again: one command into each
    /// of a million new streams (an insertion and an eviction each, a take and a put back for every
    /// stream of a round) spent a fifth of the deciding thread in the cache either way.
    private var table: [UInt64] = Array(repeating: 0, count: 64)
    /// States by slot, kept out of `table` so that growing it moves numbers only.
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

    subscript(stream: String) -> Entry? {
        find(stream, hash: stream.hashValue).flatMap { found in slots[found.slot].state.map { ($0, slots[found.slot].version) } }
    }

    /// Whether the stream's cached state lacks some of its kept rows, without copying it.
    func isPartial(_ stream: String) -> Bool { find(stream, hash: stream.hashValue).map { slots[$0.slot].partial } ?? false }

    /// Moves the stream's state out (the caller puts it back when its batch is done).
    mutating func take(_ stream: String) -> Entry? { take(stream, hash: stream.hashValue) }

    /// `take`, where the caller hashed the name already (`hash` is `stream.hashValue`).
    mutating func take(_ stream: String, hash: Int) -> Entry? {
        guard let found = find(stream, hash: hash) else { return nil }
        removeName(at: found.bucket)
        vacate(found.slot)
        slots[found.slot].stamp = 0
        return slots[found.slot].state.take().map { ($0, slots[found.slot].version) }
    }

    mutating func put(_ entry: Entry, for stream: String) { put(entry, for: stream, hash: stream.hashValue) }

    /// `put`, where the caller hashed the name already (`hash` is `stream.hashValue`).
    mutating func put(_ entry: Entry, for stream: String, hash: Int) {
        var entry = entry
        clock += 1
        var size = Self.cost(of: entry.state, stream: stream)
        // A short history stays whole (a whole state serves every command, and reloading one that
        // a command needs whole waits for its stream's write under way); a long one, or one that
        // would not fit, is slimmed.
        if keepsLatestRowOnly, LogDecider.isSlimmedForCache(entry.state) || cost + size > budget {
            LogDecider.slimForCache(&entry.state)
            size = Self.cost(of: entry.state, stream: stream)
        }
        let partial = !LogDecider.holdsAllKeptRows(entry.state)
        let slot: Int
        if let found = find(stream, hash: hash) {
            slot = found.slot
            vacate(slot)
            free.removeLast()
        } else if let reused = free.popLast() {
            slot = reused
            insertName(slot: slot, hash: hash)
        } else {
            slot = slots.count
            slots.append(Slot(stream: "", hash: 0, state: nil, version: 0, cost: 0, stamp: 0, partial: false))
            insertName(slot: slot, hash: hash)
        }
        slots[slot] = Slot(stream: stream, hash: hash, state: entry.state, version: entry.version, cost: size, stamp: clock, partial: partial)
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
    }

    mutating func remove(_ stream: String) {
        _ = take(stream)
    }

    /// What a state costs the budget: its estimated size and what the cache spends to hold it (its
    /// slot, its name in `table` and `recency`, spare room). Without the latter, new sessions of a
    /// few hundred bytes of state each filled the budget with far more states than it meant to
    /// hold, and what the cache spent on them, uncounted, raised a `send`'s peak memory; long
    /// sessions, whose states run to kilobytes, hardly notice it.
    /// A stream's name longer than a `String`'s 15 inline bytes (a random session id) is an
    /// allocation of its own, which the slot holds: counted too, so that a million sessions with
    /// random ids hold no more than the budget either.
    static func cost(of state: LogDecider.State, stream: String = "") -> Int {
        let name = stream.utf8.count
        return LogDecider.estimatedCost(of: state) + 256 + (name > 15 ? 48 + name : 0)
    }

    /// The bucket naming the stream and the slot holding its state, if one does.
    private func find(_ stream: String, hash: Int) -> (bucket: Int, slot: Int)? {
        let mask = table.count - 1
        let tag = Self.tag(hash)
        var bucket = hash & mask
        while table[bucket] != 0 {
            if table[bucket] >> 32 == tag {
                let slot = Int(truncatingIfNeeded: table[bucket] & 0xFFFF_FFFF) - 1
                if slots[slot].stream == stream { return (bucket, slot) }
            }
            bucket = (bucket + 1) & mask
        }
        return nil
    }

    /// The part of a hash a bucket keeps: its low 32 bits, which hold every bucket number's.
    private static func tag(_ hash: Int) -> UInt64 { UInt64(truncatingIfNeeded: hash) & 0xFFFF_FFFF }

    private mutating func insertName(slot: Int, hash: Int) {
        if (count + 1) * 4 > table.count * 3 { grow() }
        let mask = table.count - 1
        var bucket = hash & mask
        while table[bucket] != 0 { bucket = (bucket + 1) & mask }
        table[bucket] = Self.tag(hash) << 32 | UInt64(slot + 1)
    }

    /// Empties a bucket, moving back each name after it that may not stay past the gap (linear
    /// probing's deletion), so that every lookup still meets its name before an empty bucket.
    private mutating func removeName(at bucket: Int) {
        let mask = table.count - 1
        var gap = bucket
        var next = (gap + 1) & mask
        while table[next] != 0 {
            let home = Int(truncatingIfNeeded: table[next] >> 32) & mask
            // Moves back unless its home lies cyclically in (gap, next].
            if (next - home) & mask >= (next - gap) & mask {
                table[gap] = table[next]
                gap = next
            }
            next = (next + 1) & mask
        }
        table[gap] = 0
    }

    /// Twice the buckets, the names placed again by the hashes they keep.
    private mutating func grow() {
        let mask = table.count * 2 - 1
        var grown = [UInt64](repeating: 0, count: table.count * 2)
        for name in table where name != 0 {
            var bucket = Int(truncatingIfNeeded: name >> 32) & mask
            while grown[bucket] != 0 { bucket = (bucket + 1) & mask }
            grown[bucket] = name
        }
        table = grown
    }

    /// `take` for a state nobody wants back (evicted): released in place. A million new sessions
    /// evict a million states.
    private mutating func drop(_ slot: Int) {
        let mask = table.count - 1
        var bucket = slots[slot].hash & mask
        while table[bucket] & 0xFFFF_FFFF != UInt64(slot + 1) { bucket = (bucket + 1) & mask }
        removeName(at: bucket)
        vacate(slot)
        slots[slot].stamp = 0
        slots[slot].state = nil
    }

    /// Takes a slot's state out of the totals and offers the slot for reuse.
    private mutating func vacate(_ slot: Int) {
        cost -= slots[slot].cost
        if slots[slot].partial { partialCount -= 1 }
        free.append(slot)
    }
}
