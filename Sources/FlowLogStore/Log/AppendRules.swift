/// One write transaction of a log, as the append rules see it: what it has stored, and the few
/// ways to store more. Each backend implements it over its own transaction; `AppendRules` is the
/// one place that decides what a batch of requests does.
public protocol AppendTransaction {
    /// Events per stream between snapshots (0: none).
    var snapshotInterval: Int { get }
    /// The last position and its chain hash (the seed of the next record's).
    mutating func head() throws -> (position: Int, hash: UInt64)
    /// The stream's stored version: 0 for a stream that has no events.
    mutating func storedVersion(of stream: String) throws -> Int
    mutating func storedReceipt(stream: String, commandId: String) throws -> CommandReceipt?
    /// Stores one event at the position and version the rules gave it and returns its chain hash.
    /// `streamOrdinal` numbers the batch's streams from 0 in the order they first appear.
    mutating func store(_ record: RecordedEvent, chainedTo previousHash: UInt64, fingerprint: UInt64?, streamOrdinal: Int) throws -> UInt64
    mutating func storeReceipt(_ receipt: CommandReceipt, stream: String, commandId: String) throws
    /// Keeps a row the domain declared beside an event just stored (`KeptRow`: an order placed),
    /// the `version`-th event of `stream`: the one hook through which storage keeps what the
    /// domain wants beside its events. `StreamForgetting` removes a stream's rows again.
    mutating func keep(_ row: KeptRow, stream: String, version: Int) throws
    mutating func storeSnapshot(_ state: StreamState, stream: String, version: Int, position: Int) throws
    /// Keeps the stream's latest state (one per stream, replaced each time): a writer that meets
    /// the stream later loads it and folds at most `AppendRules.headInterval` events.
    mutating func storeHead(_ state: StreamState, stream: String, version: Int, position: Int) throws
    /// Ends the batch: the streams it moved, with their new versions.
    mutating func finish(versions: [String: Int]) throws
}

extension AppendTransaction {
    /// A backend that keeps no heads loads from its snapshots.
    public mutating func storeHead(_ state: StreamState, stream: String, version: Int, position: Int) throws {}
}

/// The append rules of the log contract, written once for every backend: idempotency by command
/// id, expected versions, chained requests, and the assignment of positions and versions.
public enum AppendRules {
    /// How many streams one commit's commands may name at most; a batch that names more is
    /// committed in parts, cut between lines. In a large log each stream a commit touches costs
    /// it a few pages of its own (the tails of the stream index, the order index and the heads),
    /// which LMDB holds in memory until the commit. Without the cap, commands that each went to
    /// another of many sessions took `send` well past its memory bound; the cap costs such input
    /// some time. A 1 MiB read of sessions' visits names about 1,000 streams and is not cut.
    /// Sessions with random names change a page of the stream table each, which `pagesPerCommit`
    /// bounds below this, where `send` knows the pages (decisions.md, "A commit names at most
    /// 3,072 streams").
    public static let streamsPerCommit = 3_072

    /// How many pages of the log's table of streams one of `send`'s commits may change, where the
    /// look-ahead knows the pages its streams' entries fall on (`PrefetchedState.tablePage`): each
    /// such page counts once, so sessions named in sequence commit `streamsPerCommit` at a time, and
    /// sessions with random ids, a page each, fewer (decisions.md, "A commit's pages of the table
    /// of streams").
    public static let pagesPerCommit = 2_048

    /// A stream's head is kept whenever its version crosses a multiple of this: loading a stream
    /// to decide its next command then folds at most 15 events. Snapshots, every 1,000 events,
    /// serve states at past positions; loading a stream from them folded 500 events on average,
    /// and a `send` into a log of 2,000 sessions spent two thirds of its time doing that.
    public static let headInterval = 16

    /// Events per stream between snapshots in a log that was never given another interval, in
    /// every backend.
    public static let defaultSnapshotInterval = 1_000

    /// Answers each request in order and stores the accepted ones through `transaction`.
    ///
    /// A request whose command id the stream accepted before is a duplicate; one whose expected
    /// version is not the stream's is a conflict; a `chained` request whose predecessor for the
    /// same stream in this batch was not appended is a conflict too, since it was decided against
    /// events that never happened. Accepted events get the next positions and stream versions.
    public static func apply<Transaction: AppendTransaction>(_ requests: [AppendRequest], in transaction: inout Transaction) throws -> [AppendResult]
    {
        var (position, previousHash) = try transaction.head()
        let snapshotInterval = transaction.snapshotInterval
        var versions: [String: Int] = [:]
        var ordinals: [String: Int] = [:]
        // Room for a commit's streams at once (`send` names at most this many in one): grown from
        // nothing, the two tables were rehashed a dozen times in a commit of new sessions.
        versions.reserveCapacity(min(requests.count, AppendRules.streamsPerCommit))
        ordinals.reserveCapacity(min(requests.count, AppendRules.streamsPerCommit))
        var poisoned: Set<String> = []
        var results: [AppendResult] = []
        results.reserveCapacity(requests.count)
        // Requests are read in place, by index: `for request in requests` copied each one (retaining
        // every string and array it holds), an eighth of this loop's time in a `send`.
        // The stream of the requests before, with its version and ordinal, kept out of the
        // dictionaries while requests for it come in a row (a session's visit mostly does):
        // comparing a name costs less than hashing it twice per request.
        var run: (stream: String, version: Int, ordinal: Int?, appended: Bool)?
        for index in requests.indices {
            let stream = requests[index].stream
            if run?.stream != stream {
                if let done = run, done.appended { versions[done.stream] = done.version }
                // A stream has an ordinal once a request of it was appended, and then a version in
                // `versions` too: a stream new to the batch costs one lookup here, not two.
                if let version = versions[stream] {
                    run = (stream, version, ordinals[stream], false)
                } else {
                    run = (stream, try transaction.storedVersion(of: stream), nil, false)
                }
            }
            let current = run!.version
            if requests[index].chained, !poisoned.isEmpty, poisoned.contains(stream) {
                results.append(.conflict(actualVersion: current))
                continue
            }
            if let id = requests[index].commandId, let receipt = try transaction.storedReceipt(stream: stream, commandId: id) {
                poisoned.insert(stream)
                results.append(.duplicate(receipt))
                continue
            }
            if let expected = requests[index].expectedVersion, expected != current {
                poisoned.insert(stream)
                results.append(.conflict(actualVersion: current))
                continue
            }
            let first = position + 1
            var version = current
            let ordinal: Int
            if let known = run!.ordinal {
                ordinal = known
            } else {
                ordinal = ordinals.count
                ordinals[stream] = ordinal
                run!.ordinal = ordinal
            }
            let eventCount = requests[index].events.count
            let fingerprinted = requests[index].fingerprints.count == eventCount
            var keptRow = 0
            for offset in 0..<eventCount {
                position += 1
                version += 1
                // The record is made from the request's event in place: a copy of the event first
                // retained and released every string it holds once more, on the thread that writes.
                let record = RecordedEvent(
                    position: position, stream: stream, version: version,
                    eventId: requests[index].events[offset].eventId, timestamp: requests[index].events[offset].timestamp,
                    actor: requests[index].events[offset].actor, correlationId: requests[index].events[offset].correlationId,
                    causationId: requests[index].events[offset].causationId, traceContext: requests[index].events[offset].traceContext,
                    event: requests[index].events[offset].event)
                previousHash = try transaction.store(
                    record, chainedTo: previousHash,
                    fingerprint: fingerprinted ? requests[index].fingerprints[offset] : nil, streamOrdinal: ordinal)
                if let derived = KeptRow(for: record.event) {
                    let given = keptRow < requests[index].keptRows.count ? requests[index].keptRows[keptRow] : nil
                    keptRow += 1
                    try transaction.keep(given ?? derived, stream: stream, version: version)
                }
            }
            if let state = requests[index].stateAfter {
                if snapshotInterval > 0, current / snapshotInterval != version / snapshotInterval {
                    try transaction.storeSnapshot(StreamState(state), stream: stream, version: version, position: position)
                }
                if current / headInterval != version / headInterval {
                    try transaction.storeHead(StreamState(state), stream: stream, version: version, position: position)
                }
            }
            run!.version = version
            run!.appended = true
            let receipt = CommandReceipt(
                firstPosition: first, eventCount: eventCount, version: version,
                commandFingerprint: requests[index].commandFingerprint)
            if let id = requests[index].commandId { try transaction.storeReceipt(receipt, stream: stream, commandId: id) }
            if !poisoned.isEmpty { poisoned.remove(stream) }
            results.append(.appended(receipt))
        }
        if let done = run, done.appended { versions[done.stream] = done.version }
        try transaction.finish(versions: versions)
        return results
    }
}
