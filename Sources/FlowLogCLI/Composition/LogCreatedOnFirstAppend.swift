import Deciding
import FlowLog
import FlowLogBasics
import FlowLogStore
import FlowLogSystem
import Synchronization

/// The log a writing command (`send`, a typed command) appends to, created only when its first
/// event is appended: a command the rules reject, or input with nothing to accept, leaves no log
/// folder behind. Until then the log reads as empty, which is what a log that does not exist holds.
/// A path that could never hold a log (its folder is missing, it holds something else) is refused
/// at once, before any input is read, as before.
/// It reads many streams at once, and answers before a commit is confirmed, when the log it opened
/// can (`StreamBatchReading`, `DeferredCommitAppending`: PostgreSQL); an embedded log's writes go to
/// a `BackgroundAppender` (`PredictedAppending`), so `send` decides a batch while the one before
/// is written. It tells its snapshot interval (`SnapshotStore`): a `CommandProcessor` that cannot
/// learn it hands each request's state to the log, in case the log keeps a snapshot there, and
/// `send` then held a copy of the stream's state for every command until the commit: commands that
/// filled carts with many lines took it well past its memory bound, and took longer than once the
/// interval was known.
final class LogCreatedOnFirstAppend: EventLog, StreamBatchReading, DeferredCommitAppending, SnapshotStore, StatePrefetching {
    private let options: LogOptions
    private var opened: (any LogStore)? {
        didSet {
            let reading = opened?.capabilities.prefetching.map(ReadingBesideWriter.init)
            openedReading.withLock { $0 = reading }
        }
    }
    /// The opened log's reads beside its writer, for `send`'s reading thread, which looks ahead
    /// while the writer's thread creates the log (`committedStates`).
    private let openedReading = Mutex<ReadingBesideWriter?>(nil)
    /// Whether the log was not there when this began and will be an embedded one: until it is
    /// created every stream is empty, and `send` looks ahead from the start.
    private var createsEmbeddedLog = false
    /// The writes handed to a thread of their own, for an opened log that can check a prediction.
    private var appender: BackgroundAppender?
    let location: String

    init(_ options: LogOptions) throws {
        self.options = options
        location = Backend.redacted(options.logPath)
        if case .postgres = Backend(options.logPath) {
            // PostgreSQL creates a log's tables with its first write, in that write's transaction.
            opened = try Composition.openLog(options, access: .readWriteCreating)
            return
        }
        do {
            opened = try Composition.openMappedLarge(options, access: .readWrite)
        } catch FlowLogError.notFound {
            createsEmbeddedLog = true
            // Nothing there yet (or an empty folder): what creating it will need is checked now.
            let parent = Self.parentFolder(of: options.logPath)
            var info = stat()
            guard stat(parent, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                throw FlowLogError.missingParent(path: options.logPath, parent: parent)
            }
        }
    }

    /// After every write handed to the background appender: a synchronous append comes after them.
    func append(_ requests: [AppendRequest]) throws -> [AppendResult] {
        appender?.drain()
        return try openedCreating().append(requests)
    }

    /// The log, created now if it is not there yet: for the calls that write.
    private func openedCreating() throws -> any LogStore {
        if let opened { return opened }
        let created = try Composition.openMappedLarge(options, access: .readWriteCreating)
        opened = created
        return created
    }

    /// A log not yet created will get the default interval.
    func snapshotInterval() throws -> Int { try opened?.snapshotInterval() ?? AppendRules.defaultSnapshotInterval }

    func setSnapshotInterval(_ interval: Int) throws {
        appender?.drain()
        try openedCreating().setSnapshotInterval(interval)
    }

    func snapshotCount() throws -> Int {
        appender?.waitForWrites()
        return try opened?.snapshotCount() ?? 0
    }

    /// It reads many streams at once and defers commits itself, passing both to the log it opened
    /// where that log can (its predicted appends it uses itself, through its `BackgroundAppender`);
    /// following and backups are the opened log's, once there is one.
    var capabilities: LogCapabilities {
        // Batch reads only where the opened log has them: the processor's preparing of them (a
        // lookup of every command's stream) bought nothing from a log that reads one by one.
        LogCapabilities(
            snapshots: self, batchReading: opened?.capabilities.batchReading == nil ? nil : self, deferredCommits: self,
            following: opened?.capabilities.following, backup: opened?.capabilities.backup,
            forgetting: opened?.capabilities.forgetting, keptRowRepair: opened?.capabilities.keptRowRepair,
            predictedAppends: nil, prefetching: opened == nil && createsEmbeddedLog ? self : opened?.capabilities.prefetching,
            eventIds: opened?.capabilities.eventIds,
            newestLogSchema: opened?.capabilities.newestLogSchema ?? LogSettings.newestLogSchema,
            keepsRowsApart: opened?.capabilities.keepsRowsApart ?? false)
    }

    /// A log not yet created will be an embedded one (PostgreSQL's is opened at once), which
    /// defers through a `BackgroundAppender`: the first batch's write overlaps too.
    var defersCommit: Bool { opened == nil ? true : deferring?.defersCommit ?? false }

    func appendDeferringCommit(_ requests: [AppendRequest]) throws -> (results: [AppendResult], commit: any PendingCommit) {
        // Created here as by `append`: these requests hold the first events.
        if opened == nil, !requests.isEmpty { _ = try openedCreating() }
        if let deferring { return try deferring.appendDeferringCommit(requests) }
        return (try append(requests), SettledCommit())
    }

    /// The opened log's own deferral, or a background appender over it; none before it exists.
    private var deferring: (any DeferredCommitAppending)? {
        guard let opened else { return nil }
        if let own = opened.capabilities.deferredCommits { return own }
        if let appender { return appender }
        guard let predicting = opened.capabilities.predictedAppends else { return nil }
        appender = BackgroundAppender(log: predicting)
        return appender
    }

    /// A log not yet created will be a new one.
    func settings() throws -> LogSettings { try opened?.settings() ?? .newLog() }

    func updateSettings(_ change: (LogSettings, Bool) throws -> LogSettings) throws -> LogSettings {
        appender?.drain()
        return try openedCreating().updateSettings(change)
    }

    func version(of stream: String) throws -> Int {
        appender?.settle(streams: CollectionOfOne(stream))
        return try opened?.version(of: stream) ?? 0
    }
    func receipt(stream: String, commandId: String) throws -> CommandReceipt? {
        appender?.settle(streams: CollectionOfOne(stream))
        return try opened?.receipt(stream: stream, commandId: commandId)
    }
    func lastPosition() throws -> Int {
        appender?.waitForWrites()
        return try opened?.lastPosition() ?? 0
    }
    func forEachStream(from start: String?, _ body: (String, Int) throws -> Bool) throws {
        appender?.waitForWrites()
        try opened?.forEachStream(from: start, body)
    }
    func event(inStream stream: String, version: Int) throws -> RecordedEvent? {
        appender?.settle(streams: CollectionOfOne(stream))
        return try opened?.event(inStream: stream, version: version)
    }

    func forEachEvent(from: Int, through: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        appender?.waitForWrites()
        try opened?.forEachEvent(from: from, through: through, body)
    }

    func forEachEvent(inStream stream: String, throughPosition: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        appender?.settle(streams: CollectionOfOne(stream))
        try opened?.forEachEvent(inStream: stream, throughPosition: throughPosition, body)
    }

    func streamState(ofStream stream: String, throughPosition: Int?) throws -> (state: StreamState, version: Int) {
        appender?.settle(streams: CollectionOfOne(stream))
        return try opened?.streamState(ofStream: stream, throughPosition: throughPosition) ?? (StreamState.initial, 0)
    }

    func versions(of streams: [String]) throws -> [String: Int] {
        appender?.settle(streams: streams)
        return try opened?.currentVersions(of: streams) ?? Dictionary(streams.map { ($0, 0) }, uniquingKeysWith: { first, _ in first })
    }

    func streamStates(ofStreams streams: [String]) throws -> [String: (state: StreamState, version: Int)] {
        appender?.settle(streams: streams)
        if let reader = opened?.capabilities.batchReading { return try reader.streamStates(ofStreams: streams) }
        return Dictionary(try streams.map { ($0, try streamState(ofStream: $0, throughPosition: nil)) }, uniquingKeysWith: { first, _ in first })
    }

    /// The opened log's committed states, or, before it is created, every stream's initial one: a
    /// new log's sessions are all new, and loading each on the writer's thread, one read
    /// transaction a stream once the log was there, took a fifth of a `send` into new sessions.
    /// Their entries all go to the end of an empty table, as LMDB's past its last key (`Int.max`).
    func committedStates(ofStreams streams: [String], slimmingPast: Int?) throws -> [PrefetchedState] {
        if let reading = openedReading.withLock({ $0 }) { return try reading.log.committedStates(ofStreams: streams, slimmingPast: slimmingPast) }
        return streams.map { _ in PrefetchedState(state: .initial, version: 0, tablePage: .max) }
    }

    func receipts(of commands: [(stream: String, commandId: String)]) throws -> [String: [String: CommandReceipt]] {
        appender?.settle(streams: commands.lazy.map(\.stream))
        if let reader = opened?.capabilities.batchReading { return try reader.receipts(of: commands) }
        var receipts: [String: [String: CommandReceipt]] = [:]
        for (stream, id) in commands { receipts[stream, default: [:]][id] = try receipt(stream: stream, commandId: id) }
        return receipts
    }

    /// A log's reads beside its writer may come from any thread (`StatePrefetching`).
    private struct ReadingBesideWriter: @unchecked Sendable {
        let log: any StatePrefetching
    }

    private static func parentFolder(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
}
