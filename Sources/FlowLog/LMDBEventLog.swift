import FlowDomain
import LMDB
#if canImport(Glibc)
import Glibc
#endif

/// The durable event log: an LMDB environment (a folder holding `data.mdb` and `lock.mdb`).
///
/// Named databases:
/// - `meta`: the log schema version;
/// - `events`: position (8 bytes, big-endian, so keys sort by position) → binary record (`RecordCodec`);
/// - `streams`: stream id → its current version (8 bytes, little-endian);
/// - `streamIndex`: stream id, 0x00, version (big-endian) → position (big-endian);
/// - `commands`: stream id, 0x00, command id → first position, event count, version after it;
/// - `eventIds`: event id (16 bytes) → position, so that no event id is ever stored twice;
/// - `snapshots`: stream id, 0x00, version (big-endian) → reducer version, position, the state without
///   its orders (`StateCodec`) and a checksum, every `snapshotInterval` events of a stream;
/// - `orders`: stream id, 0x00, order number (big-endian, from 1) → the stream version that placed it
///   and the order: a snapshot holds only the number of orders, so its size does not grow with them;
/// - `orderPages`: stream id, 0x00, page number (big-endian, from 1) → orders `ordersPerPage` × (page − 1)
///   + 1 through `ordersPerPage` × page, encoded one after another, and a checksum. A page is written
///   with its last order and never changes; it lets a history of tens of thousands of orders be read
///   from a few contiguous runs of pages instead of one scattered leaf page per fifty orders.
///
/// A `streamIndex` value may carry, after the position, the fingerprint of the stream's state after
/// that event (`StateCodec.fingerprint`), which `replay --verify` compares with a fresh replay.
///
/// Every `append` is one write transaction: all of a batch or none of it reaches the disk, and
/// LMDB's writer lock serialises processes that share the folder.
public final class LMDBEventLog: EventLog {
    public static let logSchemaVersion = 1
    public enum Access: Sendable {
        /// Read and write; create the log (and its folder, not its parent) when it does not exist.
        case readWriteCreating
        /// Read and write an existing log.
        case readWrite
        /// Read an existing log; never creates or changes anything.
        case readOnly
    }

    public let path: String
    let environment: Environment

    /// The memory map's current size in bytes.
    public var mapSize: Int { environment.mapSize }
    let meta: Database
    let eventsDB: Database
    let streamsDB: Database
    let streamIndexDB: Database
    let commandsDB: Database
    let eventIdsDB: Database
    let snapshotsDB: Database
    let ordersDB: Database
    /// Absent from logs written before order pages existed, when they are opened read-only.
    let orderPagesDB: Database?
    private var writer = BinaryWriter(capacity: 512)

    /// Opens the log at `path` (a folder). `initialMapSize` only matters for a new log or a larger
    /// map: the map grows by itself whenever it is full.
    public init(path: String, access: Access = .readWriteCreating, initialMapSize: Int = 1 << 30) throws(FlowLogError) {
        self.path = path
        try LogFolder.prepare(path: path, creating: access == .readWriteCreating)
        var options = Environment.Options()
        options.initialMapSize = initialMapSize
        options.readOnly = access == .readOnly
        options.maxDatabases = 16
        do {
            environment = try Environment(path: path, options: options)
        } catch {
            throw LogFolder.openingError(error, path: path)
        }
        // Before anything is created: another program's environment gains nothing from FlowLog.
        let recognition: LogRecognition
        do {
            recognition = try LogRecognition.inspect(environment)
        } catch {
            throw LogFolder.openingError(error, path: path)
        }
        if let refusal = recognition.refusal { throw .notALog(path: path, reason: refusal) }
        do {
            let names = ["meta", "events", "streams", "streamIndex", "commands", "eventIds", "snapshots", "orders"]
            let databases: [Database]
            if access == .readOnly {
                databases = try environment.openDatabases(named: names, create: false)
            } else {
                databases = try environment.openDatabases(named: names, create: true)
            }
            (meta, eventsDB, streamsDB, streamIndexDB, commandsDB, eventIdsDB, snapshotsDB, ordersDB) =
                (databases[0], databases[1], databases[2], databases[3], databases[4], databases[5], databases[6], databases[7])
            orderPagesDB = try Self.openOrderPages(environment, creating: access != .readOnly)
        } catch let error as LMDBError where error.isNotFound {
            throw .notALog(path: path, reason: "it is an LMDB environment without FlowLog's databases")
        } catch {
            throw LogFolder.openingError(error, path: path)
        }
        try checkSchema(writable: access != .readOnly)
    }

    /// Order pages are an index that came after the first logs, so a read-only open of an older
    /// log goes without it: its orders are read one by one, as before.
    private static func openOrderPages(_ environment: Environment, creating: Bool) throws -> Database? {
        do {
            return try environment.openDatabases(named: ["orderPages"], create: creating)[0]
        } catch let error as LMDBError where error.isNotFound && !creating {
            return nil
        }
    }

    private func checkSchema(writable: Bool) throws(FlowLogError) {
        let key = Array("schema".utf8)
        do {
            let found: Int? = try environment.read { txn in
                try txn.get(meta, key: key).map { Keys.decodeInt($0) }
            }
            if let found {
                if found > Self.logSchemaVersion {
                    throw FlowLogError.newerSchema(path: path, found: found, supported: Self.logSchemaVersion)
                }
            } else if writable {
                try environment.write { txn in
                    try txn.put(meta, key: key, value: withUnsafeBytes(of: UInt64(Self.logSchemaVersion).littleEndian, Array.init))
                }
            }
        } catch let error as FlowLogError {
            throw error
        } catch {
            throw LogFolder.openingError(error, path: path)
        }
    }

    // MARK: Appending

    public func append(_ requests: [AppendRequest]) throws -> [AppendResult] {
        do {
            return try environment.write { txn in try appendInTransaction(requests, txn) }
        } catch let error as LMDBError {
            throw FlowLogError.writing(error, path: path)
        }
    }

    private func appendInTransaction(_ requests: [AppendRequest], _ txn: Transaction) throws -> [AppendResult] {
        var (position, previousHash) = try head(txn)
        let snapshotInterval = try storedSnapshotInterval(txn)
        var orderNumbers: [String: Int] = [:]
        var versions: [String: Int] = [:]
        var poisoned: Set<String> = []
        var results: [AppendResult] = []
        results.reserveCapacity(requests.count)
        var puts = PendingEventPuts()
        var runs: [String: Int] = [:]
        for request in requests {
            let current = try versions[request.stream] ?? storedVersion(of: request.stream, txn)
            if request.chained, poisoned.contains(request.stream) {
                results.append(.conflict(actualVersion: current))
                continue
            }
            if let id = request.commandId, let receipt = try storedReceipt(stream: request.stream, commandId: id, txn) {
                poisoned.insert(request.stream)
                results.append(.duplicate(receipt))
                continue
            }
            if let expected = request.expectedVersion, expected != current {
                poisoned.insert(request.stream)
                results.append(.conflict(actualVersion: current))
                continue
            }
            let first = position + 1
            var version = current
            let run = runs[request.stream] ?? { runs[request.stream] = runs.count; return runs.count - 1 }()
            for new in request.events {
                position += 1
                version += 1
                let record = RecordedEvent(position: position, stream: request.stream, version: version,
                                           eventId: new.eventId, timestamp: new.timestamp, actor: new.actor,
                                           correlationId: new.correlationId, causationId: new.causationId, event: new.event)
                let fingerprint = request.fingerprints.count == request.events.count ? request.fingerprints[version - current - 1] : nil
                previousHash = puts.add(record, chainedTo: previousHash, encoder: &writer, fingerprint: fingerprint, tag: position, run: run)
                if case .cart(.orderPlaced(let placed)) = new.event {
                    let number = try orderNumbers[request.stream] ?? orderCount(of: request.stream, txn)
                    try recordOrder(Order(orderId: placed.orderId, total: placed.total, itemCount: placed.itemCount), number: number + 1, stream: request.stream, version: version, txn)
                    orderNumbers[request.stream] = number + 1
                }
            }
            if let state = request.stateAfter, snapshotInterval > 0, current / snapshotInterval != version / snapshotInterval {
                try writeSnapshot(state, stream: request.stream, version: version, position: position, txn)
            }
            versions[request.stream] = version
            let receipt = CommandReceipt(firstPosition: first, eventCount: request.events.count, version: version)
            if let id = request.commandId {
                try txn.put(commandsDB, key: Keys.command(request.stream, id), value: Keys.receipt(receipt))
            }
            poisoned.remove(request.stream)
            results.append(.appended(receipt))
        }
        if let refused = try puts.write(to: self, txn) {
            // The id generator repeated itself: nothing of this batch may be committed.
            throw LMDBError.keyExists("storing the event id of position \(refused.tag)")
        }
        for (stream, version) in versions {
            try txn.put(streamsDB, key: Array(stream.utf8), value: Keys.littleEndian(UInt64(version)))
        }
        return results
    }

    /// The last position and its chain hash (the seed of the next record).
    func head(_ txn: Transaction) throws -> (position: Int, hash: UInt64) {
        try txn.withCursor(eventsDB) { cursor in
            guard let last = try cursor.last() else { return (0, RecordCodec.genesisHash) }
            let position = Keys.decodePosition(last.key)
            guard let hash = RecordCodec.storedHash(of: last.value) else {
                throw FlowLogError.damaged(RecordDamage(position: position, stream: nil, problem: "the record is truncated"))
            }
            return (position, hash)
        }
    }

    func storedVersion(of stream: String, _ txn: Transaction) throws -> Int {
        guard let value = try txn.get(streamsDB, key: Array(stream.utf8)) else { return 0 }
        return Keys.decodeInt(value)
    }

    private func storedReceipt(stream: String, commandId: String, _ txn: Transaction) throws -> CommandReceipt? {
        try txn.get(commandsDB, key: Keys.command(stream, commandId)).map(Keys.decodeReceipt)
    }

    // MARK: Reading

    public func version(of stream: String) throws -> Int {
        try reading { txn in try storedVersion(of: stream, txn) }
    }

    public func receipt(stream: String, commandId: String) throws -> CommandReceipt? {
        try reading { txn in try storedReceipt(stream: stream, commandId: commandId, txn) }
    }

    public func lastPosition() throws -> Int {
        try reading { txn in try head(txn).position }
    }

    public func forEachEvent(from: Int, through: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        let start = max(from, 1)
        if let through, through < start { return }
        try reading { txn in
            // Past the end there is nothing to read (and no predecessor to check the chain against).
            guard start <= (try head(txn).position) else { return }
            var previousHash = try hashBefore(position: start, txn)
            var expected = start
            var scanned = ResidentPageRelease.walk(in: txn)
            defer { scanned.finish() }
            try txn.withCursor(eventsDB) { cursor in
                // Local to this closure: a variable it captured was copied each time it was passed on.
                var event = RecordedEvent.placeholder
                var record = try cursor.seek(atOrAfter: Keys.position(start))
                while let (key, value) = record {
                    let position = Keys.decodePosition(key)
                    if let through, position > through { return }
                    guard position == expected else {
                        throw FlowLogError.damaged(RecordDamage(position: expected, stream: nil, problem: "it is missing (the next stored position is \(position))"))
                    }
                    previousHash = try decode(value, position: position, previousHash: previousHash, into: &event)
                    guard try body(event) else { return }
                    expected += 1
                    if let address = value.baseAddress { scanned.include(address) }
                    record = try cursor.next()
                }
            }
        }
    }

    public func forEachEvent(inStream stream: String, throughPosition: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        try reading { txn in
            try scan(stream: stream, fromVersion: 1, throughPosition: throughPosition, txn) { event, _ in try body(event) }
        }
    }

    /// One stream's events with the fingerprint recorded for the state after each (where there is one).
    public func forEachEventWithFingerprint(inStream stream: String, _ body: (RecordedEvent, UInt64?) throws -> Bool) throws {
        try reading { txn in try scan(stream: stream, fromVersion: 1, throughPosition: nil, txn, body) }
    }

    /// The state from the latest snapshot at or before `throughPosition` that today's reducers wrote,
    /// then the events after it: O(snapshot interval) work however long the stream is.
    public func state(ofStream stream: String, throughPosition: Int?) throws -> (state: FlowState, version: Int) {
        try reading { txn in try state(ofStream: stream, throughPosition: throughPosition, txn) }
    }

    func state(ofStream stream: String, throughPosition: Int?, _ txn: Transaction) throws -> (state: FlowState, version: Int) {
        var (state, version) = try latestSnapshot(of: stream, throughPosition: throughPosition, txn) ?? (FlowDecider.initialState, 0)
        try scan(stream: stream, fromVersion: version + 1, throughPosition: throughPosition, txn) { event, _ in
            FlowDecider.evolve(&state, event.event)
            version = event.version
            return true
        }
        return (state, version)
    }

    private func scan(stream: String, fromVersion: Int, throughPosition: Int?, _ txn: Transaction,
                      _ body: (RecordedEvent, UInt64?) throws -> Bool) throws {
        let prefix = Keys.streamPrefix(stream)
        try txn.withCursor(streamIndexDB) { cursor in
            var entry = try cursor.seek(atOrAfter: Keys.streamVersion(stream, fromVersion))
            var expectedVersion = fromVersion
            var scanned = ResidentPageRelease.stream(in: txn)
            defer { scanned.finish() }
            var event = RecordedEvent.placeholder
            while let (key, value) = entry, key.starts(with: prefix) {
                let position = Keys.decodePosition(value)
                if let throughPosition, position > throughPosition { return }
                guard let bytes = try txn.get(eventsDB, key: Keys.position(position)) else {
                    throw FlowLogError.damaged(RecordDamage(position: position, stream: stream, problem: "the stream index points at it, but it is missing"))
                }
                _ = try decode(bytes, position: position, previousHash: try hashBefore(position: position, txn), into: &event)
                if let address = bytes.baseAddress { scanned.include(address) }
                guard event.stream == stream, event.version == expectedVersion else {
                    throw FlowLogError.damaged(RecordDamage(position: position, stream: stream, problem: "the stream index says version \(expectedVersion) of \(stream), the record says version \(event.version) of \(event.stream)"))
                }
                guard try body(event, Keys.decodeFingerprint(value)) else { return }
                expectedVersion += 1
                entry = try cursor.next()
            }
        }
    }

    /// Version `version` of a stream's events, or `nil` when the stream has no such version.
    public func event(inStream stream: String, version: Int) throws -> RecordedEvent? {
        try reading { txn in
            guard version >= 1, let entry = try txn.get(streamIndexDB, key: Keys.streamVersion(stream, version)) else { return nil }
            let position = Keys.decodePosition(entry)
            guard let bytes = try txn.get(eventsDB, key: Keys.position(position)) else {
                throw FlowLogError.damaged(RecordDamage(position: position, stream: stream, problem: "the stream index points at it, but it is missing"))
            }
            return try decode(bytes, position: position, previousHash: try hashBefore(position: position, txn)).0
        }
    }

    // MARK: Snapshots

    /// Events per stream between snapshots (0: none). Every writer of the log uses the stored value.
    public static let defaultSnapshotInterval = 1_000

    public func snapshotInterval() throws -> Int {
        try reading { txn in try storedSnapshotInterval(txn) }
    }

    /// Sets the snapshot interval for every writer of this log; 0 turns snapshots off.
    public func setSnapshotInterval(_ interval: Int) throws {
        precondition(interval >= 0)
        do {
            try environment.write { txn in try txn.put(meta, key: Array("snapshotInterval".utf8), value: Keys.littleEndian(UInt64(interval))) }
        } catch let error as LMDBError {
            throw FlowLogError.io(path: path, detail: "\(error)")
        }
    }

    func storedSnapshotInterval(_ txn: Transaction) throws -> Int {
        guard let value = try txn.get(meta, key: Array("snapshotInterval".utf8)) else { return Self.defaultSnapshotInterval }
        return Keys.decodeInt(value)
    }

    func writeSnapshot(_ state: FlowState, stream: String, version: Int, position: Int, _ txn: Transaction) throws {
        try txn.put(snapshotsDB, key: Keys.streamVersion(stream, version), value: Self.snapshotValue(state, position: position))
    }

    /// A `snapshots` value: the reducer version, the position, the state without its orders, a checksum.
    static func snapshotValue(_ state: FlowState, position: Int) -> [UInt8] {
        var encoded = BinaryWriter(capacity: 256)
        StateCodec.encode(state, withoutOrders: true, into: &encoded)
        var value = BinaryWriter(capacity: encoded.count + 28)
        value.write(UInt64(FlowDecider.reducerVersion))
        value.write(UInt64(position))
        encoded.withUnsafeBytes { value.write(bytes: $0) }
        value.writeChecksum()
        return value.bytes
    }

    /// Keeps order `number` (from 1) of a stream in the order index.
    func recordOrder(_ order: Order, number: Int, stream: String, version: Int, _ txn: Transaction) throws {
        var value = BinaryWriter(capacity: 64)
        value.write(UInt64(version))
        StateCodec.encode(order: order, into: &value)
        try txn.put(ordersDB, key: Keys.streamVersion(stream, number), value: value.bytes)
        if number % Self.ordersPerPage == 0 {
            try writeOrderPage(number / Self.ordersPerPage, of: stream, txn)
        }
    }

    /// Orders per order page: about 27 KB, a run of seven contiguous pages of the map.
    static let ordersPerPage = 1_024

    /// Copies page `page` of a stream's orders from the order index, where its last order just went.
    private func writeOrderPage(_ page: Int, of stream: String, _ txn: Transaction) throws {
        guard let orderPagesDB else { return }
        let first = (page - 1) * Self.ordersPerPage + 1
        let prefix = Keys.streamPrefix(stream)
        var value = BinaryWriter(capacity: Self.ordersPerPage * 32)
        let complete = try txn.withCursor(ordersDB) { cursor in
            var entry = try cursor.seek(atOrAfter: Keys.streamVersion(stream, first))
            var number = first
            while number < first + Self.ordersPerPage, let (key, stored) = entry, key.starts(with: prefix),
                  Keys.decodeNumber(key) == number, stored.count > 8 {
                // The order as the index encodes it, without the version in front.
                value.write(bytes: UnsafeRawBufferPointer(rebasing: stored[8...]))
                number += 1
                entry = try cursor.next()
            }
            return number == first + Self.ordersPerPage
        }
        // An index with a gap gets no page; readers fall back to the index, which reports the gap.
        guard complete else { return }
        value.writeChecksum()
        try txn.put(orderPagesDB, key: Keys.streamVersion(stream, page), value: value.bytes)
    }

    /// How many orders the order index holds for a stream.
    func orderCount(of stream: String, _ txn: Transaction) throws -> Int {
        try txn.withCursor(ordersDB) { cursor in
            let prefix = Keys.streamPrefix(stream)
            let entry = try cursor.seek(atOrAfter: prefix + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
            guard let (key, _) = entry == nil ? try cursor.last() : try cursor.previous(), key.starts(with: prefix) else { return 0 }
            return Keys.decodeNumber(key)
        }
    }

    /// A stream's first `count` orders: whole order pages first, then the rest from the order index.
    private func orders(of stream: String, count: Int, _ txn: Transaction) throws -> [Order]? {
        guard count > 0 else { return [] }
        var orders: [Order] = []
        // Room for the orders the fold after the snapshot adds, so they don't copy the history.
        orders.reserveCapacity(count + 64)
        try readOrderPages(of: stream, upTo: count, into: &orders, txn)
        let prefix = Keys.streamPrefix(stream)
        return try txn.withCursor(ordersDB) { cursor in
            var entry = try cursor.seek(atOrAfter: Keys.streamVersion(stream, orders.count + 1))
            while orders.count < count, let (key, value) = entry, key.starts(with: prefix), value.count > 8,
                  let order = StateCodec.decodeOrder(UnsafeRawBufferPointer(rebasing: value[8...])) {
                orders.append(order)
                entry = try cursor.next()
            }
            return orders.count == count ? orders : nil
        }
    }

    /// Appends the stream's order pages from page 1 while they lie within its first `count` orders,
    /// stopping at the first page that is missing (a log older than order pages) or damaged.
    private func readOrderPages(of stream: String, upTo count: Int, into orders: inout [Order], _ txn: Transaction) throws {
        guard let orderPagesDB, count >= Self.ordersPerPage else { return }
        let prefix = Keys.streamPrefix(stream)
        try txn.withCursor(orderPagesDB) { cursor in
            var entry = try cursor.seek(atOrAfter: Keys.streamVersion(stream, 1))
            var page = 1
            while page * Self.ordersPerPage <= count, let (key, value) = entry, key.starts(with: prefix), Keys.decodeNumber(key) == page,
                  StateCodec.appendOrders(fromPage: value, count: Self.ordersPerPage, to: &orders) {
                page += 1
                entry = try cursor.next()
            }
        }
    }

    /// The latest intact snapshot of `stream` written by today's reducers at or before `throughPosition`.
    private func latestSnapshot(of stream: String, throughPosition: Int?, _ txn: Transaction) throws -> (FlowState, Int)? {
        var ceiling = try storedVersion(of: stream, txn)
        if let throughPosition {
            // The stream's version at that position: versions and positions rise together, so bisect.
            var low = 0
            var high = ceiling
            while low < high {
                let middle = (low + high + 1) / 2
                guard let entry = try txn.get(streamIndexDB, key: Keys.streamVersion(stream, middle)) else { break }
                if Keys.decodePosition(entry) <= throughPosition { low = middle } else { high = middle - 1 }
            }
            ceiling = low
        }
        guard ceiling > 0 else { return nil }
        let prefix = Keys.streamPrefix(stream)
        return try txn.withCursor(snapshotsDB) { cursor in
            var entry = try cursor.seek(atOrAfter: Keys.streamVersion(stream, ceiling + 1))
            entry = entry == nil ? try cursor.last() : try cursor.previous()
            while let (key, value) = entry, key.starts(with: prefix) {
                if var snapshot = Self.decodeSnapshot(key: key, value: value),
                   let orders = try orders(of: stream, count: snapshot.orderCount, txn) {
                    snapshot.state.orders = OrderHistory(orders: orders)
                    return (snapshot.state, snapshot.version)
                }
                entry = try cursor.previous()
            }
            return nil
        }
    }

    /// A snapshot's state and version, or `nil` when it is damaged or from other reducers.
    private static func decodeSnapshot(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> (state: FlowState, version: Int, orderCount: Int)? {
        guard value.count > 24, let body = BinaryWriter.verifiedBody(of: value),
              Keys.decodeInt(body) == FlowDecider.reducerVersion,
              let (state, orderCount) = StateCodec.decodeWithoutOrders(UnsafeRawBufferPointer(rebasing: body[16...]))
        else { return nil }
        return (state, Keys.decodeNumber(key), orderCount)
    }

    /// How many snapshots the log holds (for status and tests).
    public func snapshotCount() throws -> Int {
        try reading { txn in try txn.count(snapshotsDB) }
    }

    private func hashBefore(position: Int, _ txn: Transaction) throws -> UInt64 {
        guard position > 1 else { return RecordCodec.genesisHash }
        guard let bytes = try txn.get(eventsDB, key: Keys.position(position - 1)),
              let hash = RecordCodec.storedHash(of: bytes) else {
            throw FlowLogError.damaged(RecordDamage(position: position - 1, stream: nil, problem: "it is missing or truncated"))
        }
        return hash
    }

    /// As `RecordCodec.decode(_:expectedPosition:previousHash:into:)`, with damage thrown as `FlowLogError`.
    private func decode(_ bytes: UnsafeRawBufferPointer, position: Int, previousHash: UInt64, into record: inout RecordedEvent) throws -> UInt64 {
        do {
            return try RecordCodec.decode(bytes, expectedPosition: position, previousHash: previousHash, into: &record)
        } catch {
            throw FlowLogError.damaged(error)
        }
    }

    private func decode(_ bytes: UnsafeRawBufferPointer, position: Int, previousHash: UInt64) throws -> (RecordedEvent, UInt64) {
        var record = RecordedEvent.placeholder
        let hash = try decode(bytes, position: position, previousHash: previousHash, into: &record)
        return (record, hash)
    }

    func reading<Result>(_ body: (Transaction) throws -> Result) throws -> Result {
        do {
            return try environment.read(body)
        } catch let error as LMDBError {
            throw FlowLogError.io(path: path, detail: "\(error)")
        }
    }

    /// Names every stream in the log with its version, in stream id order.
    public func streams() throws -> [(stream: String, version: Int)] {
        try reading { txn in
            try txn.withCursor(streamsDB) { cursor in
                var result: [(String, Int)] = []
                var entry = try cursor.first()
                while let (key, value) = entry {
                    result.append((String(decoding: key, as: UTF8.self), Keys.decodeInt(value)))
                    entry = try cursor.next()
                }
                return result
            }
        }
    }
}

/// Lets the kernel take back the memory map's resident pages every so often during a long scan:
/// all of them, not just the records read, since the index and branch pages a scan passes through
/// (and the neighbours the kernel maps around each fault, whole large folios where the page cache
/// holds them) count as much. Releasing early costs re-faults, hence an interval, not every record.
///
/// A short scan never releases: what it maps is bounded by what it reads, and a release is an
/// `madvise` over the whole map plus re-faults afterwards (it was a third of a `state --at` that
/// folds a few hundred events after a snapshot).
struct ResidentPageRelease {
    private let enabled: Bool
    private var mapping: UnsafeRawBufferPointer?
    private var read = 0
    private var sinceRelease = 0
    /// Records read between releases: many for a sequential walk, fewer for the scattered reads of
    /// one stream, where each read may map a lot around it.
    private let releaseEvery: Int
    /// Records a scan reads before its first release.
    private let quiet: Int
    /// How many times the scan has released the map (for tests).
    private(set) var releases = 0

    /// Releasing is only ever done for read-only transactions, whose buffers all lie in the map
    /// (a write transaction's may be heap memory).
    init(releaseEvery: Int, startingAfter quiet: Int, in txn: Transaction) {
        self.releaseEvery = releaseEvery
        self.quiet = max(quiet, releaseEvery)
        self.enabled = txn.isReadOnly
    }

    /// A walk in position order: every 4,096 records (exporting ten million events then stays
    /// near 40 MB resident on this machine's kernel).
    static func walk(in txn: Transaction) -> ResidentPageRelease {
        ResidentPageRelease(releaseEvery: 1 << 12, startingAfter: 1 << 12, in: txn)
    }

    /// The scattered records of one stream: every 128 records once 1,024 were read, so the few
    /// hundred events after a snapshot are read without a release, and a whole long stream (a
    /// `replay --summary` of ten million events) stays near 40 MB resident.
    static func stream(in txn: Transaction) -> ResidentPageRelease {
        ResidentPageRelease(releaseEvery: 1 << 7, startingAfter: 1 << 10, in: txn)
    }

    /// Counts a record the scan has read and decoded; `address` is where it lies in the map.
    @inline(__always)
    mutating func include(_ address: UnsafeRawPointer) {
        guard enabled else { return }
        read += 1
        sinceRelease += 1
        guard sinceRelease >= releaseEvery, read >= quiet else { return }
        if mapping == nil { mapping = Environment.mapping(containing: address) }
        release()
    }

    /// Ends the scan: a long one leaves nothing of the map resident behind it.
    mutating func finish() {
        if sinceRelease > 0 { release() }
    }

    private mutating func release() {
        guard let mapping else { return }
        Environment.releaseResidentPages(of: mapping)
        releases += 1
        sinceRelease = 0
    }
}

/// The three puts each appended event makes — its record, its stream-index entry and its event id —
/// gathered and written as sorted batches (see `SortedPuts`). Appends and imports both use it.
struct PendingEventPuts {
    private var records = SortedPuts()
    private var index = SortedPuts()
    private var eventIds = SortedPuts()
    private var keys = KeyScratch()

    init() {}

    /// Empty, with room for as many puts as `other` holds (see `SortedPuts.init(reservingLike:)`).
    init(reservingLike other: PendingEventPuts) {
        records = SortedPuts(reservingLike: other.records)
        index = SortedPuts(reservingLike: other.index)
        eventIds = SortedPuts(reservingLike: other.eventIds)
    }

    /// Events waiting to be written.
    var count: Int { records.count }

    /// Works out the write order of every waiting put ahead of `write`.
    mutating func sort() {
        records.sort()
        index.sort()
        eventIds.sort()
    }

    /// Encodes `record`, chained to `previousHash`, in `encoder` and adds its three puts; returns
    /// the record's chain hash. `tag` comes back if its event id is refused; `run` names its stream
    /// (the stream's versions are added in ascending order).
    mutating func add(_ record: RecordedEvent, chainedTo previousHash: UInt64, encoder: inout BinaryWriter,
                      fingerprint: UInt64?, tag: Int, run: Int) -> UInt64 {
        let hash = RecordCodec.encode(record, previousHash: previousHash, into: &encoder)
        encoder.withUnsafeBytes {
            add(position: record.position, record: $0, eventId: record.eventId, stream: record.stream, version: record.version,
                fingerprint: fingerprint, tag: tag, run: run)
        }
        return hash
    }

    private mutating func add(position: Int, record: UnsafeRawBufferPointer, eventId: EventID, stream: String, version: Int,
                              fingerprint: UInt64?, tag: Int, run: Int) {
        keys.withPosition(position) { positionKey in
            records.add(key: positionKey, value: record, tag: tag)
            keys.withEventID(eventId) { eventIds.add(key: $0, value: positionKey, tag: tag) }
            keys.withIndexEntry(position: position, fingerprint: fingerprint) { entry in
                keys.withStreamVersion(stream, version) { index.add(key: $0, value: entry, tag: tag, run: run) }
            }
        }
    }

    /// Writes and forgets every waiting put. Returns the earliest-tagged event whose id the log (or
    /// an earlier put) already had; the other puts are written regardless.
    mutating func write(to log: LMDBEventLog, _ txn: Transaction) throws -> (tag: Int, eventId: EventID)? {
        _ = try records.write(to: log.eventsDB, in: txn, appending: true)
        _ = try index.write(to: log.streamIndexDB, in: txn)
        guard let refused = try eventIds.write(to: log.eventIdsDB, in: txn, flags: .noOverwrite, appending: true),
              let id = Keys.decodeEventID(refused.key) else { return nil }
        return (refused.tag, id)
    }
}

/// Builds keys in buffers that live on the stack, so the hot append path allocates nothing per key.
struct KeyScratch {
    private var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    func withPosition<R>(_ position: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes(of: UInt64(position).bigEndian, body)
    }

    /// A `streamIndex` value: the position (big-endian), then the state's fingerprint if known.
    func withIndexEntry<R>(position: Int, fingerprint: UInt64?, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes(of: (UInt64(position).bigEndian, (fingerprint ?? 0).littleEndian)) { raw in
            try body(fingerprint == nil ? UnsafeRawBufferPointer(rebasing: raw[0..<8]) : raw)
        }
    }

    func withEventID<R>(_ id: EventID, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeBytes(of: (id.high.bigEndian, id.low.bigEndian), body)
    }

    /// `stream`, 0x00, big-endian `version` (streams are identifiers of at most 64 bytes).
    mutating func withStreamVersion<R>(_ stream: String, _ version: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var stream = stream
        return try withUnsafeMutableBytes(of: &buffer) { raw in
            let count = stream.withUTF8 { utf8 in
                raw.copyMemory(from: UnsafeRawBufferPointer(utf8))
                return utf8.count
            }
            raw[count] = 0
            raw.storeBytes(of: UInt64(version).bigEndian, toByteOffset: count + 1, as: UInt64.self)
            return try body(UnsafeRawBufferPointer(rebasing: raw[0..<count + 9]))
        }
    }
}

/// The byte layouts of the keys and small values above.
enum Keys {
    static func position(_ position: Int) -> [UInt8] { bigEndian(UInt64(position)) }

    static func eventID(_ id: EventID) -> [UInt8] { bigEndian(id.high) + bigEndian(id.low) }

    /// The event id an `eventIds` key holds, in `eventID(_:)`'s layout.
    static func decodeEventID(_ key: [UInt8]) -> EventID? {
        guard key.count == 16 else { return nil }
        return key.withUnsafeBytes {
            EventID(high: UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)), low: UInt64(bigEndian: $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
    }

    /// The fingerprint after the position in a `streamIndex` value, if it has one.
    static func decodeFingerprint(_ value: UnsafeRawBufferPointer) -> UInt64? {
        value.count >= 16 ? UInt64(littleEndian: value.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) : nil
    }

    /// The big-endian position at the start of a key or value (0 when it is too short to hold one,
    /// which the callers' checks then report as damage).
    static func decodePosition(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard bytes.count >= 8 else { return 0 }
        return Int(truncatingIfNeeded: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)))
    }

    static func streamPrefix(_ stream: String) -> [UInt8] { Array(stream.utf8) + [0] }

    /// The big-endian number (a version, an order or page number) at the end of a `streamVersion` key.
    static func decodeNumber(_ key: UnsafeRawBufferPointer) -> Int {
        guard key.count >= 8 else { return 0 }
        return Int(truncatingIfNeeded: UInt64(bigEndian: key.loadUnaligned(fromByteOffset: key.count - 8, as: UInt64.self)))
    }

    static func streamVersion(_ stream: String, _ version: Int) -> [UInt8] {
        streamPrefix(stream) + bigEndian(UInt64(version))
    }

    static func command(_ stream: String, _ commandId: String) -> [UInt8] {
        streamPrefix(stream) + Array(commandId.utf8)
    }

    static func receipt(_ receipt: CommandReceipt) -> [UInt8] {
        littleEndian(UInt64(receipt.firstPosition)) + littleEndian(UInt64(receipt.eventCount)) + littleEndian(UInt64(receipt.version))
    }

    static func decodeReceipt(_ bytes: UnsafeRawBufferPointer) -> CommandReceipt {
        CommandReceipt(firstPosition: decodeInt(bytes), eventCount: decodeInt(bytes, at: 8), version: decodeInt(bytes, at: 16))
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
    static func littleEndian(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }

    /// The little-endian integer at `offset` of a stored value, as `littleEndian(_:)` wrote it (0 when
    /// the value is too short to hold one, which the callers' checks then report as damage).
    static func decodeInt(_ bytes: UnsafeRawBufferPointer, at offset: Int = 0) -> Int {
        guard bytes.count >= offset + 8 else { return 0 }
        return Int(truncatingIfNeeded: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
    }
}
