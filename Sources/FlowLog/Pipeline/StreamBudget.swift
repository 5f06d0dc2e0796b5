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

    /// `admits` for one name, without gathering.
    public mutating func admits(_ name: String) -> Bool {
        if name == last { return true }
        if streams.contains(name) {
            last = name
            return true
        }
        if !fits(adding: 1) { return false }
        streams.insert(name)
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
