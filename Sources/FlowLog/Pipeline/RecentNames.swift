/// A set that forgets: the names inserted since the current generation began and those of the
/// generation before, so at most two generations' names, whatever the number inserted.
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
        let hash = name.hashValue
        if older.contains(hash) || !recent.insert(hash) { return false }
        if recent.count >= generation {
            swap(&older, &recent)
            recent.removeAll()
        }
        return true
    }

    /// Hashes in an open-addressed table (linear probing), at most half full. It starts small and
    /// doubles as it fills, so that a `send` of a few lines does not zero a megabyte.
    private struct HashTable {
        private var buckets = [Int](repeating: 0, count: 16)
        private(set) var count = 0

        func contains(_ hash: Int) -> Bool { bucket(of: Self.key(hash)).found }

        /// Whether the hash was not there yet.
        mutating func insert(_ hash: Int) -> Bool {
            let key = Self.key(hash)
            let (bucket, found) = bucket(of: key)
            guard !found else { return false }
            buckets[bucket] = key
            count += 1
            if count * 2 > buckets.count { grow() }
            return true
        }

        /// Twice the buckets, the hashes placed again.
        private mutating func grow() {
            let old = buckets
            buckets = [Int](repeating: 0, count: old.count * 2)
            for key in old where key != 0 { buckets[bucket(of: key).index] = key }
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
