/// One of `count` parts of a tracker's work: the streams whose id hashes to `index`. Each part has
/// its own lease and checkpoint, so several runners deliver one tracker's events at once, and a
/// stream's events all go through one part, in order.
///
/// The hash is FNV-1a over the id's UTF-8 bytes: the same on every machine and in every build
/// (Swift's `Hasher` is seeded per process, so two runners would disagree on a stream's part).
public struct ProjectorPartition: Hashable, Sendable {
    /// From 0.
    public let index: Int
    public let count: Int

    public init(index: Int, count: Int) {
        precondition(count >= 1 && (0..<count).contains(index), "a partition index is within its count")
        (self.index, self.count) = (index, count)
    }

    /// Every part of a projector split `count` ways.
    public static func all(_ count: Int) -> [ProjectorPartition] {
        (0..<max(1, count)).map { ProjectorPartition(index: $0, count: max(1, count)) }
    }

    /// The part's name, under which its checkpoint, lease and status are kept: `tracker.segment.part-2-of-4`
    /// (a name that is also a file name, for LMDB's lock files).
    public func name(of projector: String) -> String {
        count == 1 ? projector : "\(projector).part-\(index + 1)-of-\(count)"
    }

    public func contains(stream: String) -> Bool {
        Self.index(of: stream, count: count) == index
    }

    /// The part of `count` that `stream`'s events go through.
    public static func index(of stream: String, count: Int) -> Int {
        guard count > 1 else { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in stream.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return Int(hash % UInt64(count))
    }
}

/// How many parts each tracker is split into, kept in the log's projections store beside the
/// checkpoints (as the checkpoint of the reserved name `NAME.partitions`), so every backend keeps
/// it without a table of its own and every runner reads the same number. A repartition in progress
/// keeps the count it goes to under `NAME.repartitioning`.
public enum ProjectorPartitioning {
    /// The most parts a tracker may have: each is a lease (a connection on PostgreSQL) while run.
    public static let maximumCount = 64

    /// 1 for a projector never split.
    public static func count(of projector: String, in store: any CheckpointStore) throws -> Int {
        min(maximumCount, max(1, try store.checkpoint(of: projector + ".partitions")))
    }

    public static func setCount(_ count: Int, of projector: String, in store: any CheckpointStore) throws {
        try store.setCheckpoint(count, of: projector + ".partitions")
    }

    /// The count a repartition is moving `projector` to, or `nil` when none is under way: runners
    /// let go of its parts and take none of them meanwhile.
    public static func pendingCount(of projector: String, in store: any CheckpointStore) throws -> Int? {
        let pending = try store.checkpoint(of: projector + ".repartitioning")
        guard pending > 0 else { return nil }
        return try pending != count(of: projector, in: store) ? pending : nil
    }

    public static func setPendingCount(_ count: Int?, of projector: String, in store: any CheckpointStore) throws {
        try store.setCheckpoint(count ?? 0, of: projector + ".repartitioning")
    }

    /// Whether `name` is `projector` itself or one of its parts (`NAME.part-K-of-N`).
    public static func isPart(_ name: String, of projector: String) -> Bool {
        name == projector || name.hasPrefix(projector + ".part-")
    }

    /// The names of a projector's parts (its own name when it is not split).
    public static func names(of projector: String, count: Int) -> [String] {
        ProjectorPartition.all(count).map { $0.name(of: projector) }
    }

    /// Starts part `name` at `checkpoint`, with its collector's acknowledged mark at `acknowledged`
    /// (so a later rebuild of the part does not send again what the collector had before the split).
    public static func seed(_ name: String, checkpoint: Int, acknowledged: Int, in store: any CheckpointStore) throws {
        try store.setCheckpoint(max(checkpoint, acknowledged), of: name)
        try store.rewindTracker(name, resending: false)
        try store.setCheckpoint(checkpoint, of: name)
    }
}
