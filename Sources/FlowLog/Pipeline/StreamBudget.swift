import FlowLogStore

/// The streams one commit names so far, against a limit. In a large LMDB log each stream a commit
/// touches costs it pages of its own, held in memory until the commit, so `send` and the server's
/// writer end a commit where the next commands would take it past the limit
/// (`AppendRules.streamsPerCommit`).
public struct StreamBudget {
    public let limit: Int
    private var streams: Set<String> = []
    /// The name admitted last: a session's commands come in a row, and comparing a name costs
    /// less than hashing it into the set.
    private var last: String?

    public init(limit: Int) {
        self.limit = limit
    }

    /// A budget that has counted `streams` already (a part of `send`'s read, counted when it was cut).
    init(limit: Int, counted streams: Set<String>) {
        self.limit = limit
        self.streams = streams
    }

    /// The streams counted.
    var counted: Set<String> { streams }

    /// How many streams are counted.
    public var count: Int { streams.count }

    /// Whether `names` fit beside the streams counted so far; if they do, they are counted too. The
    /// first names of an empty budget always fit, however many they are: a commit takes at least
    /// one line or request.
    public mutating func admits(_ names: some Sequence<String>) -> Bool {
        var added: Set<String> = []
        for name in names where !streams.contains(name) {
            added.insert(name)
            if !fits(adding: added.count) { return false }
        }
        streams.formUnion(added)
        return true
    }

    /// `admits` for one name, without gathering. A name is hashed once: inserted where one more
    /// would fit, looked up where it would not.
    public mutating func admits(_ name: String) -> Bool {
        if name == last { return true }
        if fits(adding: 1) {
            // Room for a whole commit's streams from the first (a commit of new sessions grew the
            // set a dozen times, rehashing every name each time).
            if streams.isEmpty { streams.reserveCapacity(min(limit, AppendRules.streamsPerCommit)) }
            streams.insert(name)
        } else if !streams.contains(name) {
            return false
        }
        last = name
        return true
    }

    /// The rule for both: `count` more streams fit within the limit, or nothing is counted yet.
    private func fits(adding count: Int) -> Bool {
        streams.isEmpty || streams.count + count <= limit
    }

    /// Counts nothing again, for the next commit.
    public mutating func reset() {
        streams.removeAll(keepingCapacity: true)
        last = nil
    }
}
