public import FlowLogBasics
public import FlowLogStore
import FlowLogSystem

/// Every capability of a complete backend, in memory, so that the contract suite runs each of
/// them against memory as against LMDB (and PostgreSQL).
extension InMemoryEventLog: SnapshotStore, FingerprintedLog, CheckpointStore, ReadModelStore, EventImporting,
    IntegrityChecking, LogFollowing
{
    // MARK: Snapshots

    public func snapshotInterval() throws -> Int { snapshotEvery }
    public func setSnapshotInterval(_ interval: Int) throws { snapshotEvery = interval }
    public func snapshotCount() throws -> Int { snapshots.values.reduce(0) { $0 + $1.count } }

    public func forEachEventWithFingerprint(from: Int, through: Int?, _ body: (RecordedEvent, UInt64?) throws -> Bool) throws {
        let records = events.records
        let upper = min(through ?? records.count, records.count)
        guard max(from, 1) <= upper else { return }
        for index in max(from, 1) - 1..<upper where !records[index].isForgotten {
            guard try body(records[index], fingerprints[index]) else { return }
        }
    }

    public func forEachEventWithFingerprintByStream(_ body: (RecordedEvent, UInt64?) throws -> Bool) throws {
        var going = true
        try forEachStream(from: nil) { stream, _ in
            for index in events.indices(of: stream) where going {
                going = try body(events.records[index], fingerprints[index])
            }
            return going
        }
    }

    // MARK: Projections

    public func checkpoint(of projector: String) throws -> Int { checkpoints[projector] ?? 0 }
    public func setCheckpoint(_ position: Int, of projector: String) throws { checkpoints[projector] = position }
    public func acknowledgedPosition(of projector: String) throws -> Int { acknowledged[projector] ?? 0 }

    public func rewindTracker(_ projector: String, resending: Bool) throws {
        acknowledged[projector] = resending ? nil : max(acknowledged[projector] ?? 0, checkpoints[projector] ?? 0)
        checkpoints[projector] = 0
    }

    public func setProjectionStatus(_ projector: String, failure: String?) throws { failures[projector] = failure }

    public func projectionStatus(of names: [String]) throws -> [ProjectionStatus] {
        names.map {
            ProjectionStatus(name: $0, checkpoint: checkpoints[$0] ?? 0, lag: events.records.count - (checkpoints[$0] ?? 0), failure: failures[$0])
        }
    }

    /// One runner per projector within this process (memory is not shared with others).
    public func leaseProjector(_ name: String) throws -> any ProjectorLease {
        guard leased.insert(name).inserted else { throw FlowLogError.busy(ProjectorBusy(projector: name, pid: getpid())) }
        return MemoryLease(projector: name, log: self)
    }

    public func leaseHolders(of names: [String]) throws -> [String: LeaseHolder] {
        let holder = LeaseHolder(pid: getpid(), host: nil, generation: nil)
        return Dictionary(names.filter(leased.contains).map { ($0, holder) }, uniquingKeysWith: { first, _ in first })
    }

    private final class MemoryLease: ProjectorLease {
        let projector: String
        private weak var log: InMemoryEventLog?
        init(projector: String, log: InMemoryEventLog) { (self.projector, self.log) = (projector, log) }
        deinit { log?.leased.remove(projector) }
    }

    // MARK: Read models

    public func updateReadModels(_ body: (any ReadModelTransaction) throws -> Void) throws {
        let transaction = MemoryReadModelTransaction(models: readModels, checkpoint: checkpoints["storage"] ?? 0)
        try body(transaction)
        readModels = transaction.models
        checkpoints["storage"] = transaction.storedCheckpoint
    }

    public func resetReadModels() throws {
        readModels = ReadModels()
        checkpoints["storage"] = 0
    }

    public func readModelState(of stream: String) throws -> (state: StreamState, version: Int)? {
        guard checkpoints["storage"] ?? 0 == events.records.count else { return nil }
        return readModels.states[stream].map { (StreamState($0.state), $0.version) } ?? (StreamState.initial, 0)
    }

    public func readModelRows(stream: String?) throws -> [(position: Int, stream: String, row: KeptRow)] {
        readModels.orders.filter { stream == nil || $0.stream == stream }.map { ($0.position, $0.stream, KeptRow($0.order)) }
    }

    public func readModelFlag(stream: String) throws -> Bool? { readModels.flags.values[stream] }

    /// The read models as a stable text, so a rebuild can be compared with what it replaced.
    public func readModelDump() throws -> [UInt8] {
        var text = ""
        for stream in readModels.states.keys.sorted() {
            text += "state \(stream) \(readModels.states[stream]!.version) \(readModels.states[stream]!.state)\n"
        }
        for order in readModels.orders { text += "order \(order.position) \(order.stream) \(order.order)\n" }
        for stream in readModels.flags.values.keys.sorted() { text += "flag \(stream) \(readModels.flags.values[stream]!)\n" }
        return Array(text.utf8)
    }

    // MARK: Import

    /// On the calling thread: memory is not thread-safe, so the three-stage pipeline is not for it.
    public func importNDJSON(from reader: consuming LineReader, expectedBytes: Int, progress: Progress?) throws -> Int {
        var reader = reader
        return try importEvents { sink in
            var lineNumber = 0
            while try reader.readBatch({ lines in
                for line in lines {
                    lineNumber += 1
                    guard case .text(let bytes) = line else {
                        throw FlowLogError.refusedImport(
                            ImportError(line: lineNumber, problem: "it is longer than \(LineReader.maximumLineLength) bytes"))
                    }
                    do {
                        try sink.add(try RecordedEventJSON.decode(bytes), line: lineNumber)
                    } catch let problem as RecordedEventJSON.Problem {
                        throw FlowLogError.refusedImport(ImportError(line: lineNumber, problem: problem.message))
                    }
                }
            }) {}
        }
    }

    public func importEvents(_ produce: (any EventSink) throws -> Void) throws -> Int {
        try MemoryImportTarget(log: self).withImportSession(expectedBytes: 0) { session in
            let sink = PreparingSink(session: session) { [self] stream in
                try (self.version(of: stream), self.streamState(ofStream: stream, throughPosition: nil).state)
            }
            try produce(sink)
            try sink.finish()
            return sink.count
        }
    }

    // MARK: Integrity and following

    /// Memory cannot be damaged from outside; the check confirms what the append rules keep.
    public func checkIntegrity(progress: Progress?) throws -> IntegrityReport {
        var report = IntegrityReport()
        var versions: [String: Int] = [:]
        for (index, record) in events.records.enumerated() {
            if record.position != index + 1 { report.note(index + 1, record.stream, "out of order") }
            if record.isForgotten {
                report.forgotten += 1
                continue
            }
            let next = (versions[record.stream] ?? 0) + 1
            if record.version != next { report.note(record.position, record.stream, "it is version \(record.version), not \(next)") }
            versions[record.stream] = record.version
        }
        report.events = events.records.count
        report.streams = versions.count
        return report
    }

    public func waitForEvents(after position: Int, timeout: Double) throws -> Int { events.records.count }
}

/// The storage projector's read models, in memory.
struct ReadModels {
    var states: [String: (state: LogDecider.State, version: Int)] = [:]
    var orders: [(position: Int, stream: String, order: LogDecider.KeptRow)] = []
    var flags = MemoryLocalStorage()
}

final class MemoryLocalStorage: LocalStorage {
    var values: [String: Bool] = [:]
    func bool(forKey key: String) throws -> Bool? { values[key] }
    func set(_ value: Bool, forKey key: String) throws { values[key] = value }
}

/// Works on a copy; `updateReadModels` keeps it only when the body finishes.
private final class MemoryReadModelTransaction: ReadModelTransaction {
    var models: ReadModels
    var storedCheckpoint: Int
    let localStorage: any LocalStorage

    init(models: ReadModels, checkpoint: Int) {
        var copy = models
        let flags = MemoryLocalStorage()
        flags.values = models.flags.values
        copy.flags = flags
        self.models = copy
        storedCheckpoint = checkpoint
        localStorage = flags
    }

    func checkpoint() throws -> Int { storedCheckpoint }
    func setCheckpoint(_ position: Int) throws { storedCheckpoint = position }
    func state(of stream: String) throws -> (state: StreamState, version: Int)? { models.states[stream].map { (StreamState($0.state), $0.version) } }
    func setState(_ state: StreamState, version: Int, of stream: String) throws { models.states[stream] = (state.value, version) }
    func addRow(_ row: KeptRow, stream: String, position: Int) throws { models.orders.append((position, stream, row.value)) }
}

/// An import into memory: batches go straight into the log's arrays, and a refused import puts
/// back what the log held before it (all or nothing).
private struct MemoryImportTarget: ImportTarget {
    let log: InMemoryEventLog

    func withImportSession(expectedBytes: Int, _ body: (any ImportSession) throws -> Int) throws -> Int {
        let saved = (log.events, log.fingerprints, log.snapshots)
        do {
            return try body(MemoryImportSession(log: log))
        } catch {
            (log.events, log.fingerprints, log.snapshots) = saved
            throw error
        }
    }
}

private struct MemoryImportSession: ImportSession {
    let log: InMemoryEventLog
    var start: ImportStart { ImportStart(position: log.events.records.count, hash: 0, snapshotInterval: log.snapshotEvery, layout: .whole) }

    func makeBuilder() -> any ImportBatchBuilder { MemoryImportBuilder() }

    func withStreamLoader(_ body: (@escaping (String) throws -> (version: Int, state: StreamState)) throws -> Void) throws {
        let log = self.log
        try body { stream in (try log.version(of: stream), try log.streamState(ofStream: stream, throughPosition: nil).state) }
    }

    func write(_ content: any Sendable, heads: [(stream: String, version: Int)]) throws {
        let batch = content as! MemoryImportBuilder.Content
        var ids = Set(log.events.records.map(\.eventId))
        for (event, fingerprint, line) in batch.events {
            guard ids.insert(event.eventId).inserted else {
                throw FlowLogError.refusedImport(ImportError(line: line, problem: "its event id \(event.eventId) is already in the log"))
            }
            log.events.append(event)
            log.fingerprints.append(fingerprint)
        }
        for (stream, version, state) in batch.snapshots { log.snapshots[stream, default: []].append((version, state)) }
    }
}

private final class MemoryImportBuilder: ImportBatchBuilder {
    struct Content: Sendable {
        var events: [(RecordedEvent, UInt64, Int)] = []
        var snapshots: [(String, Int, LogDecider.State)] = []
    }

    private var content = Content()
    var count: Int { content.events.count }

    func add(_ event: RecordedEvent, record: UnsafeRawBufferPointer, fingerprint: UInt64, line: Int, streamOrdinal: Int) {
        content.events.append((event, fingerprint, line))
    }

    /// Never called: this log's layout is the whole one, and `ImportPreparation` refuses a forgotten
    /// event for it before a builder sees one.
    func addForgotten(_ event: RecordedEvent, record: UnsafeRawBufferPointer, line: Int) {
        preconditionFailure("a log of the whole layout was handed a forgotten event")
    }

    /// Nothing: this log's snapshots hold the whole state.
    func keep(_ row: KeptRow, number: Int, stream: String, version: Int) {}

    func snapshot(_ state: StreamState, stream: String, version: Int, position: Int) {
        content.snapshots.append((stream, version, state.value))
    }

    func take() -> any Sendable {
        defer { content = Content() }
        return content
    }
}
