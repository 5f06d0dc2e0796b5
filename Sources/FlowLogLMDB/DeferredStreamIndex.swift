import LMDB

/// The stream-index entries of an import in steps, held back and written a stream at a time.
///
/// Each stream's entries go to the end of its own key range in the stream index, so a step that
/// writes a few versions of each of many streams changes every one of those streams' tail pages (and
/// copies it, and writes it at the commit) for a few dozen bytes: with 10,000 interleaved streams,
/// most of every step was tail pages written again. Held back until `capacity` entries wait (and at
/// the last batch), a stream's entries are written together, in key order, with a commit allowed
/// between two streams (`ImportSteps`), so each tail page changes once per flush.
///
/// Only an import's versions are held: consecutive, from the version the stream had (the import
/// refuses any other), so a stream keeps its first waiting version and its positions, 8 bytes an
/// event, besides its name and arrays (about 150 bytes): streams held are bounded too, so that an
/// import of millions of short sessions holds no more of them than of a few long ones. Nothing
/// reads the index of a stream the import touched before the import ends: the preparation folds
/// such a stream itself.
final class DeferredStreamIndex {
    /// Entries held before they are written: 128 for each page of the import's step (524,288 for
    /// the default step, 4 MB), so tiny steps (tests') flush often.
    let capacity: Int
    /// Streams held before they are written: 4 for each page of the step (16,384, about 3 MB).
    let streamCapacity: Int

    init(capacity: Int, streamCapacity: Int) { (self.capacity, self.streamCapacity) = (capacity, streamCapacity) }
    /// How many bytes of puts, or streams, are written between two chances to commit. Streams
    /// too: sessions of one event put about 50 bytes each, so all the streams held fit in one
    /// megabyte, and with random names each changes a page of its own, which the step could not
    /// commit before the write ended (decisions.md, "Writes of many streams' entries go in bounded
    /// pieces").
    private static let bytesPerWrite = 1 << 20
    private static let streamsPerWrite = 1_024

    /// Each held stream's slot until the next write, the slot of each of the batch's stream ordinals
    /// (the preparation's slots, which it may give to another stream between batches), and by slot:
    /// the stream's key prefix (its name and 0x00), its first waiting version, and the positions of
    /// that version and those after it.
    private var slots: [String: Int] = [:]
    private var slotOfOrdinal: [Int] = []
    private var prefixes: [[UInt8]] = []
    private var firstVersions: [Int] = []
    private var positions: [[UInt64]] = []
    private(set) var count = 0

    var isFull: Bool { count >= capacity || prefixes.count >= streamCapacity }

    /// Names the stream of `ordinal` for the entries added after this (a batch names each of its
    /// streams before its first entry): one lookup a stream and batch, not one an event.
    func name(_ stream: String, ordinal: Int) {
        if ordinal >= slotOfOrdinal.count { slotOfOrdinal += repeatElement(-1, count: ordinal + 1 - slotOfOrdinal.count) }
        if let held = slots[stream] {
            slotOfOrdinal[ordinal] = held
            return
        }
        slotOfOrdinal[ordinal] = prefixes.count
        slots[stream] = prefixes.count
        prefixes.append(Array(stream.utf8) + [0])
        firstVersions.append(0)
        positions.append([])
    }

    /// Holds the entry of `version` of the stream named for `ordinal`, the version after the last one held.
    func add(ordinal: Int, version: Int, position: Int) {
        let slot = slotOfOrdinal[ordinal]
        if positions[slot].isEmpty { firstVersions[slot] = version }
        assert(version == firstVersions[slot] + positions[slot].count, "an import's versions of a stream come one after another")
        positions[slot].append(UInt64(position))
        count += 1
    }

    /// Writes every held entry into `database`, stream by stream in key order, counting the pages
    /// as it goes so that a step may end between two streams.
    func write(into database: Database, steps: ImportSteps) throws {
        guard count > 0 else { return }
        let order = prefixes.indices.sorted { prefixes[$0].lexicographicallyPrecedes(prefixes[$1]) }
        var puts = SortedPuts()
        var streams = 0
        func flush() throws {
            try steps.willWrite(pages: puts.insertedPages + streams)
            _ = try puts.write(to: database, in: steps.current)
            streams = 0
        }
        for slot in order {
            var key = prefixes[slot] + [UInt8](repeating: 0, count: 8)
            let tail = key.count - 8
            for (offset, position) in positions[slot].enumerated() {
                key.withUnsafeMutableBytes { $0.storeBytes(of: UInt64(firstVersions[slot] + offset).bigEndian, toByteOffset: tail, as: UInt64.self) }
                withUnsafeBytes(of: position.bigEndian) { value in key.withUnsafeBytes { puts.add(key: $0, value: value, tag: 0) } }
            }
            streams += 1
            if puts.byteCount >= Self.bytesPerWrite || streams >= Self.streamsPerWrite { try flush() }
        }
        try flush()
        (slots, prefixes, firstVersions, positions) = ([:], [], [], [])
        slotOfOrdinal.removeAll(keepingCapacity: true)
        count = 0
    }
}
