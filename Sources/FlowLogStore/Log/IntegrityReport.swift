/// `flowlog verify`: walks the whole log and checks what a damaged disk, a buggy tool or a hand edit
/// could have broken, naming the position (and stream) of every problem rather than skipping it.
///
/// - the hash chain: every record's checksum covers its predecessor's, so a flipped byte, a removed,
///   reordered or altered record breaks it where it happened;
/// - contiguity: positions 1…n with none missing, each stream's versions 1…v in order;
/// - the indexes: each event's stream index entry and event id entry point back at it, and each
///   stream's stored head is its last version;
/// - the storage's structure, where it has one to walk: each damaged page by number and database.
public struct IntegrityReport: Sendable {
    public struct Problem: Sendable, CustomStringConvertible {
        public init(position: Int, stream: String?, detail: String) {
            self.position = position
            self.stream = stream
            self.detail = detail
        }

        /// A damaged page of the data file's structure, which no one position holds (position 0).
        public init(page: Int, database: String, detail: String) {
            self.position = 0
            self.stream = nil
            self.detail = detail
            self.page = page
            self.database = database
        }

        public let position: Int
        public let stream: String?
        public let detail: String
        public private(set) var page: Int?
        public private(set) var database: String?
        public var description: String {
            if let page { return "page \(page) of \(database ?? "the data file"): \(detail)" }
            return "position \(position)\(stream.map { " (stream \($0))" } ?? ""): \(detail)"
        }
    }

    public var events = 0
    /// Of `events`, those forgotten (`flowlog forget`): intact, of no stream.
    public var forgotten = 0
    public var streams = 0
    public var problems: [Problem] = []
    /// Problems beyond the first `maximumListed` are counted, not listed.
    public var unlistedProblems = 0
    public var isIntact: Bool { problems.isEmpty }
    /// Records whose checksums hold but whose kind's version is newer than this build knows: not
    /// damage (a later FlowLog reads them), but this build cannot vouch for their fields.
    public var newer: [Problem] = []
    public var unlistedNewer = 0
    /// Intact, and every record readable by this build.
    public var isReadable: Bool { isIntact && newer.isEmpty }

    public static let maximumListed = 100

    public init() {}

    /// Lists a record of a newer kind version, or counts it once `maximumListed` are listed.
    public mutating func noteNewer(_ position: Int, _ stream: String?, _ detail: String) {
        if newer.count < Self.maximumListed {
            newer.append(Problem(position: position, stream: stream, detail: detail))
        } else {
            unlistedNewer += 1
        }
    }

    /// Lists a damaged page, or counts it once `maximumListed` problems are listed.
    public mutating func notePage(_ page: Int, database: String, _ detail: String) {
        if problems.count < Self.maximumListed {
            problems.append(Problem(page: page, database: database, detail: detail))
        } else {
            unlistedProblems += 1
        }
    }

    /// Lists a problem, or counts it once `maximumListed` are listed.
    public mutating func note(_ position: Int, _ stream: String?, _ detail: String) {
        if problems.count < Self.maximumListed {
            problems.append(Problem(position: position, stream: stream, detail: detail))
        } else {
            unlistedProblems += 1
        }
    }
}
