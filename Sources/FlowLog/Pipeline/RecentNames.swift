/// A set that forgets: the names inserted since the current generation began and those of the
/// generation before, so at most two generations' names, whatever the number inserted. Each name
/// may carry a number (the look-ahead's: the page of the log's table of streams its entry falls on).
///
/// It keeps each name's hash, not the name: one hash of the name a lookup, where two sets of names
/// hashed it twice (a miss in the older generation, an insertion into the current one), and no copy
/// of the name. Two names with the same 64-bit hash read as one: the look-ahead, its one user, then
/// skips a lookup it could have made, and the processor loads that stream itself, as it loads any
/// stream met before.
struct RecentNames {
    private var recent: HashTable
    private var older: HashTable
    private let generation: Int

    init(generation: Int) {
        self.generation = max(generation, 1)
        recent = HashTable()
        older = HashTable()
    }

    /// Whether `name` is new to the last two generations; it joins the current one.
    mutating func insert(_ name: String) -> Bool {
        if case .new = meet(hash: name.hashValue) { return true }
        return false
    }

    /// What a name met is to the last two generations.
    enum Met: Equatable {
        /// New: it joined the current generation, without a number yet (`remember`).
        case new
        /// Met before, with the number remembered for it, if any.
        case before(Int?)
    }

    /// `insert` of the name whose `hashValue` is `hash`, with the number remembered for it.
    mutating func meet(hash: Int) -> Met {
        if let found = lookUp(hash) { return .before(found) }
        recent.insert(hash)
        if recent.count >= generation {
            swap(&older, &recent)
            recent.removeAll()
        }
        return .new
    }

    /// The number remembered for the name whose hash is `hash`, if any.
    func number(forHash hash: Int) -> Int? {
        lookUp(hash) ?? nil
    }

    /// `nil` when neither generation holds the hash; else its number, if any.
    private func lookUp(_ hash: Int) -> Int?? {
        older.value(of: hash) ?? recent.value(of: hash)
    }

    /// Keeps `number` for the name whose hash is `hash`, if it is still remembered.
    mutating func remember(_ number: Int?, forHash hash: Int) {
        if !recent.set(number, for: hash) { _ = older.set(number, for: hash) }
    }

    /// Hashes in an open-addressed table (linear probing), at most half full, each with a number
    /// or none. It starts small and doubles as it fills, so that a `send` of a few lines does not
    /// zero a megabyte.
    private struct HashTable {
        private var buckets = [Int](repeating: 0, count: 16)
        /// By bucket: the number kept with its hash, `Int32.min` for none. 32 bits (the look-ahead's
        /// numbers for pages are 31, and `Int.max`, a page past the end, is kept as `Int32.max`):
        /// full width, the two generations' numbers took 2 MB.
        private var values = [Int32](repeating: .min, count: 16)
        private(set) var count = 0

        /// `nil` when the hash is not here; else its number, or `.some(nil)` for none.
        func value(of hash: Int) -> Int?? {
            let (index, found) = bucket(of: Self.key(hash))
            guard found else { return nil }
            return .some(values[index] == .min ? nil : values[index] == .max ? .max : Int(values[index]))
        }

        /// Adds the hash, without a number (the caller knows it is not there).
        mutating func insert(_ hash: Int) {
            let key = Self.key(hash)
            let index = bucket(of: key).index
            buckets[index] = key
            values[index] = .min
            count += 1
            if count * 2 > buckets.count { grow() }
        }

        /// Whether the hash is here; if it is, it now has `number`.
        mutating func set(_ number: Int?, for hash: Int) -> Bool {
            let (index, found) = bucket(of: Self.key(hash))
            if found { values[index] = number.map { Int32(clamping: max($0, 0)) } ?? .min }
            return found
        }

        /// Twice the buckets, the hashes placed again with their numbers.
        private mutating func grow() {
            let old = (buckets, values)
            buckets = [Int](repeating: 0, count: old.0.count * 2)
            values = [Int32](repeating: .min, count: old.0.count * 2)
            for (key, value) in zip(old.0, old.1) where key != 0 {
                let index = bucket(of: key).index
                buckets[index] = key
                values[index] = value
            }
        }

        /// The bucket holding `key`, or the empty one where it would go.
        private func bucket(of key: Int) -> (index: Int, found: Bool) {
            let mask = buckets.count - 1
            var bucket = key & mask
            while buckets[bucket] != 0 {
                if buckets[bucket] == key { return (bucket, true) }
                bucket = (bucket + 1) & mask
            }
            return (bucket, false)
        }

        /// Empty, keeping its room: the next generation grows as large.
        mutating func removeAll() {
            guard count > 0 else { return }
            for index in buckets.indices { buckets[index] = 0 }
            count = 0
        }

        /// 0 marks an empty bucket, so a hash of 0 is kept as 1.
        private static func key(_ hash: Int) -> Int { hash == 0 ? 1 : hash }
    }
}
