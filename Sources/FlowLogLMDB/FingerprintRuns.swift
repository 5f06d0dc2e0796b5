import FlowLogBasics
import LMDB

/// The `fingerprints` database's layout: each entry is a run of consecutive positions that have a
/// fingerprint, keyed by the run's first position (8 bytes, big-endian), its value the fingerprints
/// of those positions in order (8 bytes each, little-endian).
///
/// One entry per event made a fourth B-tree put per event (an import's instructions grew by 8.5%, and
/// the database by 26 bytes an event); a run is one put per batch of up to `maximumRun` events (a
/// value that still fits in a leaf page, half of one) and 8 bytes an event.
struct FingerprintRuns {
    /// Fingerprints per entry: 2,000 bytes, under LMDB's largest value kept in a leaf (2,040 bytes
    /// with its key and header, for 4 KB pages), so runs never take overflow pages.
    static let maximumRun = 250

    private var puts = SortedPuts()
    private var start = 0
    /// The open run's fingerprints, little-endian (as stored).
    private var run: [UInt64] = []

    init() {}

    init(reservingLike other: FingerprintRuns) {
        puts = SortedPuts(reservingLike: other.puts)
    }

    /// The bytes of the waiting puts and of the open run.
    var byteCount: Int { puts.byteCount + run.count * 8 }

    /// Adds the fingerprint of `position` (positions come in ascending order); a position without
    /// one ends the run.
    mutating func add(position: Int, fingerprint: UInt64?, tag: Int) {
        guard let fingerprint else {
            close(tag: tag)
            return
        }
        if !run.isEmpty, position != start + run.count || run.count == Self.maximumRun { close(tag: tag) }
        if run.isEmpty {
            start = position
            run.reserveCapacity(Self.maximumRun)
        }
        run.append(fingerprint.littleEndian)
    }

    /// Ends the open run, if any, as a put.
    mutating func close(tag: Int = 0) {
        guard !run.isEmpty else { return }
        withUnsafeBytes(of: UInt64(start).bigEndian) { key in
            run.withUnsafeBytes { puts.add(key: key, value: $0, tag: tag) }
        }
        run.removeAll(keepingCapacity: true)
    }

    mutating func sort() {
        close()
        puts.sort()
    }

    mutating func write(to database: Database, in txn: Transaction) throws {
        close()
        _ = try puts.write(to: database, in: txn, appending: true)
    }

    /// A stored run: its first position and its fingerprints. Only damage makes a malformed one (a key
    /// that is not a position, a value that is not whole fingerprints).
    struct Stored {
        let start: Int
        let bytes: UnsafeRawBufferPointer
        var count: Int { bytes.count / 8 }
        /// One past the last position the run covers (a malformed run covers its first position).
        var end: Int { start + max(count, 1) }
        var isWellFormed: Bool { keyIsPosition && bytes.count > 0 && bytes.count % 8 == 0 }
        private let keyIsPosition: Bool

        /// `nil` only past the last entry.
        init?(_ entry: Cursor.Record?) {
            guard let (key, value) = entry else { return nil }
            start = Keys.decodePosition(key)
            keyIsPosition = key.count == 8
            bytes = value
        }

        func fingerprint(at position: Int) -> UInt64 {
            UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: (position - start) * 8, as: UInt64.self))
        }

        /// The fingerprint of `stream`'s event at `position`, which the run covers; a malformed run
        /// is damage, named at that event.
        func checkedFingerprint(at position: Int, of stream: String) throws -> UInt64 {
            guard isWellFormed else {
                throw FlowLogError.damaged(
                    RecordDamage(
                        position: position, stream: stream,
                        problem: "its recorded state fingerprints are \(bytes.count) bytes long, not a multiple of 8"))
            }
            return fingerprint(at: position)
        }
    }
}
