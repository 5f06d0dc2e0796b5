import FlowLogBasics

/// Where the log ends when an import begins: its last position and chain hash, and how often it
/// keeps snapshots.
package struct ImportStart: Sendable {
    package var position: Int
    package var hash: UInt64
    package var snapshotInterval: Int
    /// The layout of the log's schema, which the imported records take.
    package var layout: RecordLayout
    /// Whether the backend's snapshots hold each stream's kept rows, so the preparation keeps every
    /// row it folds; a backend that keeps them in an index of its own (LMDB) needs only their
    /// number and the last, and the preparation then drops the rest
    /// (`StreamState.keepOnlyLatestKeptRow`).
    package var snapshotsHoldKeptRows = true
    /// Events a batch gathers (`ImportPreparation.batchSize` unless the backend wants them smaller).
    package var batchSize = ImportPreparation.batchSize
    /// With a spill (`ImportSession.streamSpill`), how many streams the preparation holds: past
    /// that, it sets aside the half it touched longest ago.
    package var streamsHeld = ImportPreparation.streamsHeld

    package init(position: Int, hash: UInt64, snapshotInterval: Int, layout: RecordLayout) {
        (self.position, self.hash, self.snapshotInterval, self.layout) = (position, hash, snapshotInterval, layout)
    }
}

/// How a backend gathers what a run of imported events writes: each event's encoded record, and
/// the orders and snapshots they reach. Filled on the preparing thread, so that the writing thread
/// does nothing but write.
///
/// A class behind an existential rather than a generic parameter: the preparation it serves is
/// then one concrete type, which other modules call without instantiating generic metadata per
/// event (a generic `ImportPreparation<Builder>` cost an import measurably more instructions).
package protocol ImportBatchBuilder: AnyObject {
    /// Events added since the last `take`.
    var count: Int { get }
    /// An event at its position, its record already encoded (`RecordCodec`) with its chain hash.
    func add(_ event: RecordedEvent, record: UnsafeRawBufferPointer, fingerprint: UInt64, line: Int, streamOrdinal: Int)
    /// A forgotten event (an export's tombstone), its record encoded: no stream-index entry, no
    /// fingerprint. Only logs of the salted layout are handed one (`ImportPreparation.add`).
    func addForgotten(_ event: RecordedEvent, record: UnsafeRawBufferPointer, line: Int)
    /// A row the domain keeps beside the event (`AppendTransaction.keep`), the stream's `number`-th.
    func keep(_ row: KeptRow, number: Int, stream: String, version: Int)
    func snapshot(_ state: StreamState, stream: String, version: Int, position: Int)
    /// What was gathered, ready for the session that made this builder to write; the builder
    /// starts again empty.
    func take() -> any Sendable
    /// As `take`, for the import's last batch.
    func takeLast() -> any Sendable
}

extension ImportBatchBuilder {
    /// A backend that does nothing more after the last batch takes it as any other.
    package func takeLast() -> any Sendable { take() }
}

/// One prepared run of events: the backend's content, why the import ends after it (a line that
/// breaks a rule, or cannot be read), and, in the last batch, each touched stream's new head.
package struct ImportBatch: Sendable {
    package var content: any Sendable
    package var failure: (any Error)?
    package var count: Int
    package var heads: [(stream: String, version: Int)] = []
    /// In the last batch, each touched stream's final state, for backends that keep heads.
    package var finalStates: [StreamHead] = []
}

/// A stream's latest state, where a backend keeps one (`AppendTransaction.storeHead`).
package struct StreamHead: Sendable {
    package let stream: String
    package let version: Int
    package let position: Int
    package let state: StreamState
}

/// Checks and folds imported events in order and hands them to the backend's builder. Noncopyable,
/// as the `BinaryWriter`s it holds are, so the hot path pays no copy-on-write checks.
///
/// Each stream is folded as it loads, so that the imported log has fingerprints and snapshots like
/// one written through the pipeline. A stream it has not met is loaded through `loadStream`, which
/// reads the log as it was before the import.
package struct ImportPreparation: ~Copyable {
    /// What the preparation knows of a stream the import has touched: its folded state and version.
    private struct HeldStream {
        var fold: StreamFold
        /// The position of the stream's last event (0 before the import touched it).
        var position = 0
        var version: Int { fold.version }
    }

    private var position: Int
    private var previousHash: UInt64
    private let snapshotInterval: Int
    private let loadStream: (String) throws -> (version: Int, state: StreamState)
    /// Folds live in an array (read and changed in place); the dictionary finds a stream's slot.
    private var folds: [HeldStream] = []
    private var slots: [String: Int] = [:]
    /// With a spill, each held fold's stream, by slot, and where the folds set aside go.
    private var names: [String] = []
    private let spill: (any ImportStreamSpill)?
    private let streamsHeld: Int
    /// The last event's stream and slot: events of a stream mostly come in runs (a user's visit),
    /// and comparing two equal identifiers costs less than hashing one.
    private var lastStream: (name: String, slot: Int)?
    private var record = BinaryWriter(capacity: 512)
    private var salts = RecordSalts()
    private let layout: RecordLayout
    private var scratch = BinaryWriter(capacity: 512)
    private let builder: any ImportBatchBuilder
    /// See `ImportStart.snapshotsHoldKeptRows`: without, each stream keeps its last row only.
    private let keepsRows: Bool
    private let eventsPerBatch: Int

    /// Events a batch gathers before it is written: large enough that a stream's versions in the
    /// batch make long runs in the stream index (each run costs one descent of the B-tree), small
    /// enough that the waiting puts take a few megabytes and the writer starts soon. Measured with
    /// `flowlog-bench --cases import`: 8,192 left the writer behind; 16,384 to 65,536 were alike.
    package static var batchSize: Int { 32_768 }

    /// Streams held with a spill: about 500 bytes each, so a few megabytes, and far more than the
    /// streams a log's writers interleave, so that a stream is set aside once its session is over.
    package static var streamsHeld: Int { 16_384 }

    /// `spill`: where streams are set aside beyond `start.streamsHeld` (with their latest kept row
    /// only where `snapshotsHoldKeptRows` is false, whole otherwise); without one, every stream met
    /// is held.
    package init(
        start: ImportStart, builder: any ImportBatchBuilder, loadStream: @escaping (String) throws -> (version: Int, state: StreamState),
        spill: (any ImportStreamSpill)? = nil
    ) {
        self.spill = spill
        streamsHeld = max(2, start.streamsHeld)
        position = start.position
        previousHash = start.hash
        snapshotInterval = start.snapshotInterval
        layout = start.layout
        keepsRows = start.snapshotsHoldKeptRows
        eventsPerBatch = start.batchSize
        self.builder = builder
        self.loadStream = loadStream
    }

    package var isFull: Bool { builder.count >= eventsPerBatch }

    /// Adds one event to the batch, or throws the refusal of the rule it breaks; then the batch
    /// (`take()`) holds the events before it, which must be written first.
    package mutating func add(_ event: RecordedEvent, line: Int) throws {
        guard event.position == position + 1 else {
            throw FlowLogError.refusedImport(
                ImportError(
                    line: line,
                    problem: "its position is \(event.position), but the log's next position is \(position + 1) (positions must be contiguous)"))
        }
        if event.isForgotten {
            guard layout.isSalted else {
                throw FlowLogError.refusedImport(
                    ImportError(
                        line: line,
                        problem:
                            "it is a forgotten event, which only a log of log schema \(RecordLayout.saltedLogSchema) or later holds (a log created by this FlowLog, or one raised by `\(ProgramName.current) upgrade`)"
                    ))
            }
            previousHash = RecordCodec.encodeForgotten(event, previousHash: previousHash, salts: &salts, into: &record)
            record.withUnsafeBytes { builder.addForgotten(event, record: $0, line: line) }
            position = event.position
            return
        }
        let slot = try slot(of: event.stream)
        let current = folds[slot].version
        guard event.version == current + 1 else {
            throw FlowLogError.refusedImport(
                ImportError(
                    line: line, problem: "it is version \(event.version) of stream \(event.stream), but that stream's next version is \(current + 1)")
            )
        }
        let fingerprint = Self.fold(event, into: &folds[slot], scratch: &scratch)
        previousHash = RecordCodec.encode(event, previousHash: previousHash, layout: layout, salts: &salts, into: &record)
        record.withUnsafeBytes { builder.add(event, record: $0, fingerprint: fingerprint, line: line, streamOrdinal: slot) }
        if let row = KeptRow(keptBy: event.event, after: folds[slot].fold.state.value) {
            builder.keep(row, number: folds[slot].fold.state.keptRowCount, stream: event.stream, version: event.version)
            if !keepsRows { folds[slot].fold.state.keepOnlyLatestKeptRow() }
        }
        if snapshotInterval > 0, event.version % snapshotInterval == 0 {
            builder.snapshot(folds[slot].fold.state, stream: event.stream, version: event.version, position: event.position)
        }
        position = event.position
    }

    /// The batch so far; the next one starts empty.
    package mutating func take(failure: (any Error)? = nil) -> ImportBatch {
        let count = builder.count
        return ImportBatch(content: builder.take(), failure: failure, count: count)
    }

    /// The last batch: what is left, and the new head of every stream the import touched; with a
    /// spill, every touched stream is set aside there instead, for the backend to write from.
    ///
    /// The heads are gathered into arrays sized once, and the folds are let go as soon as the heads
    /// hold what the writer needs of them: an import of many streams of one event each otherwise
    /// spent a large share of its peak heap here, on the heads' array growing by doubling beside
    /// the folds.
    package mutating func takeLast() throws -> ImportBatch {
        let count = builder.count
        var last = ImportBatch(content: builder.takeLast(), failure: nil, count: count)
        if spill != nil {
            try setAside(Array(folds.indices))
            (folds, slots, names, lastStream) = ([], [:], [], nil)
            return last
        }
        var heads: [(stream: String, version: Int)] = []
        var states: [StreamHead] = []
        heads.reserveCapacity(slots.count)
        states.reserveCapacity(slots.count)
        for (stream, slot) in slots {
            let held = folds[slot]
            heads.append((stream, held.version))
            if held.position > 0 { states.append(StreamHead(stream: stream, version: held.version, position: held.position, state: held.fold.state)) }
        }
        (folds, slots, lastStream) = ([], [:], nil)
        (last.heads, last.finalStates) = (heads, states)
        return last
    }

    /// Folds `event` into its stream's fold and returns the new state's fingerprint. Static, with
    /// the fold and the scratch writer as separate `inout`s: read through `self` in a mutating
    /// method, the state was copied (its arrays and strings retained) three times an event.
    private static func fold(_ event: RecordedEvent, into held: inout HeldStream, scratch: inout BinaryWriter) -> UInt64 {
        held.fold.fold(event)
        held.position = event.position
        return held.fold.state.fingerprint(scratch: &scratch)
    }

    private mutating func slot(of stream: String) throws -> Int {
        if let last = lastStream, last.name == stream { return last.slot }
        let slot = try slots[stream] ?? load(stream)
        lastStream = (stream, slot)
        return slot
    }

    /// A stream the preparation does not hold: as the spill took it, else (one the import has not
    /// touched yet) its version and state as the log has them.
    private mutating func load(_ stream: String) throws -> Int {
        if let spill {
            if folds.count >= streamsHeld { try setAsideLeastRecent() }
            names.append(stream)
            if let back = try spill.takeBack(stream) {
                folds.append(HeldStream(fold: StreamFold(back.state, version: back.version), position: back.position))
                slots[stream] = folds.count - 1
                return folds.count - 1
            }
        }
        var (version, state) = try loadStream(stream)
        if !keepsRows { state.keepOnlyLatestKeptRow() }
        folds.append(HeldStream(fold: StreamFold(state, version: version)))
        slots[stream] = folds.count - 1
        return folds.count - 1
    }

    /// Sets aside the half of the held streams whose last event came first, and holds the rest in
    /// new slots. A slot is a batch's name for a stream until then only, which the backends that
    /// spill (an LMDB import in steps) do not keep beyond a batch.
    private mutating func setAsideLeastRecent() throws {
        let leaving = folds.indices.sorted { folds[$0].position < folds[$1].position }.prefix(folds.count / 2)
        try setAside(Array(leaving))
        var staying = [Bool](repeating: true, count: folds.count)
        for slot in leaving { staying[slot] = false }
        var (keptFolds, keptNames) = ([HeldStream](), [String]())
        keptFolds.reserveCapacity(streamsHeld)
        keptNames.reserveCapacity(streamsHeld)
        slots.removeAll(keepingCapacity: true)
        for slot in folds.indices where staying[slot] {
            slots[names[slot]] = keptFolds.count
            keptFolds.append(folds[slot])
            keptNames.append(names[slot])
        }
        (folds, names, lastStream) = (keptFolds, keptNames, nil)
    }

    /// Hands the touched streams among `slots` to the spill, in stream id order.
    private func setAside(_ leaving: [Int]) throws {
        let touched = leaving.filter { folds[$0].position > 0 }.sorted { names[$0] < names[$1] }
        try spill!.setAside(touched.map { (names[$0], folds[$0].version, folds[$0].position, folds[$0].fold.state) })
    }
}
