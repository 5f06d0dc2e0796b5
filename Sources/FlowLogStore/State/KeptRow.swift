public import Deciding
package import FlowLogBasics

/// A row the domain keeps beside its events (`Decider.keptRow(for:)`: the cart's orders), as
/// storage holds it. The append rules hand each to the backend's `AppendTransaction.keep` in the
/// append's own transaction; `StreamForgetting` removes a stream's rows with its events.
public struct KeptRow: Equatable, Sendable {
    public var value: LogDecider.KeptRow

    @inlinable public init(_ value: LogDecider.KeptRow) { self.value = value }

    /// The row `event` adds to its stream, if any, from the event alone: what it says. Where the
    /// state after the event is at hand, `init(keptBy:after:)` gives the whole row.
    @inlinable public init?(for event: LogDecider.Event) {
        guard let row = LogDecider.keptRow(for: event) else { return nil }
        value = row
    }

    /// The row `event` added, read from the state right after it: the state knows what the event
    /// alone may not (an order's currency is its cart's).
    @inlinable public init?(keptBy event: LogDecider.Event, after state: LogDecider.State) {
        guard LogDecider.keptRow(for: event) != nil, let row = LogDecider.keptRows(of: state).last else { return nil }
        value = row
    }

    // MARK: Bytes

    package func encode(into writer: inout BinaryWriter) { LogDecider.encode(keptRow: value, into: &writer) }

    package static func decode(_ bytes: UnsafeRawBufferPointer) -> KeptRow? { LogDecider.decodeKeptRow(bytes).map(KeptRow.init) }

    /// A row of the storage read model, which may be the `anonymized` row of a forgotten stream
    /// (an order without its id): what `decode` refuses in a stream's own rows, where no row lacks it.
    package static func decodeReadModelRow(_ bytes: UnsafeRawBufferPointer) -> KeptRow? {
        LogDecider.decodeKeptRow(bytes, allowingEmptyKey: true).map(KeptRow.init)
    }

    /// The next row `encode` wrote, read from `reader`; `nil` when its bytes hold none.
    static func read(_ reader: inout BinaryReader) -> KeptRow? {
        ((try? LogDecider.readKeptRow(&reader, allowingEmptyKey: false)) ?? nil).map(KeptRow.init)
    }

    /// Steps over the next row `encode` wrote and gives its key's bytes (`Decider.keptRowKeyHash`),
    /// without making the row; `nil` when its bytes hold none.
    static func readKey(_ reader: inout BinaryReader) -> UnsafeRawBufferPointer? { (try? LogDecider.readKeptRowKey(&reader)) ?? nil }

    // MARK: Columns

    /// The typed columns the domain declared for the read model's table of kept rows.
    public static var columns: [(name: StaticString, type: ReadModelColumn<LogDecider.KeptRow>.ValueType, isPersonal: Bool)] {
        LogDecider.keptRowColumns.map { ($0.name, $0.type, $0.isPersonal) }
    }

    public var columnValues: [ReadModelColumn<LogDecider.KeptRow>.Value] { LogDecider.keptRowColumns.map { $0.value(value) } }

    public init?(columnValues: [ReadModelColumn<LogDecider.KeptRow>.Value]) {
        guard let row = LogDecider.keptRow(fromColumns: columnValues) else { return nil }
        value = row
    }

    /// The row with what may name the person blanked: what a forgotten stream's read model keeps.
    public var anonymized: KeptRow { KeptRow(LogDecider.anonymized(value)) }
}

/// A stream's kept rows, read back from storage's index in order: whole pages first, then single rows.
public struct KeptRows: Sendable {
    public private(set) var rows: [LogDecider.KeptRow] = []
    /// Where only the latest row is made (`init(latestOf:)`): the others' ids' hashes, the latest.
    private var slim: SlimRows?

    public init(reservingCapacity capacity: Int) { rows.reserveCapacity(capacity) }

    /// The rows a state keeps, as a fold of its events made them.
    public init(_ state: StreamState) { rows = LogDecider.keptRows(of: state.value) }

    /// Rows read for a slim state (`LogDecider.slimForCache`): of the stream's `count` rows the
    /// latest is made, the others only hashed by their keys (`Decider.keptRowKeyHash`), from their
    /// bytes. Loading a session of 70 orders only to drop 69 of them made an order (and its
    /// strings) of each, then hashed and dropped it.
    package init(latestOf count: Int) {
        slim = SlimRows(total: count)
        slim?.keyHashes.reserveCapacity(count)
    }

    public var count: Int { slim?.count ?? rows.count }

    /// Puts the slim history the rows make into `state` (`Decider.restoreSlimKeptRows`), once all
    /// were read (`init(latestOf:)`); `false`, changing nothing, otherwise.
    func restoreSlim(into state: inout LogDecider.State) -> Bool {
        guard let slim, slim.count == slim.total, let latest = slim.latest else { return false }
        LogDecider.restoreSlimKeptRows(latest: latest, droppedKeyHashes: slim.keyHashes, into: &state)
        return true
    }

    /// Appends one row as `KeptRow.encode` wrote it; `false` when the bytes hold none.
    package mutating func append(encoded bytes: UnsafeRawBufferPointer) -> Bool {
        if slim != nil {
            var reader = BinaryReader(bytes)
            return slim!.take(&reader)
        }
        guard let row = LogDecider.decodeKeptRow(bytes) else { return false }
        rows.append(row)
        return true
    }

    /// Appends the `count` rows of a page (rows one after another, then a checksum); a page that is
    /// damaged or holds another number of rows appends nothing.
    package mutating func append(page bytes: UnsafeRawBufferPointer, count: Int) -> Bool {
        guard var taking = slim else { return LogDecider.appendKeptRows(fromPage: bytes, count: count, to: &rows) }
        guard LogDecider.readKeptRows(inPage: bytes, count: count, { taking.take(&$0) }) else { return false }
        slim = taking
        return true
    }
}

/// `KeptRows`' rows of a slim state as they are read.
private struct SlimRows: Sendable {
    let total: Int
    var count = 0
    /// The hashes of the keys of the rows before the latest, oldest first.
    var keyHashes: [UInt64] = []
    var latest: LogDecider.KeptRow?

    /// Reads the next row from `reader`: the latest is made, any other hashed by its key.
    mutating func take(_ reader: inout BinaryReader) -> Bool {
        if count + 1 == total {
            guard let row = KeptRow.read(&reader) else { return false }
            latest = row.value
        } else {
            guard let key = KeptRow.readKey(&reader) else { return false }
            keyHashes.append(LogDecider.keptRowKeyHash(utf8: key))
        }
        count += 1
        return true
    }
}

/// What a repair of the rows kept beside the events found, or changed.
public struct KeptRowRepair: Equatable, Sendable {
    /// Streams whose kept rows differed from a fold of their events, and were rewritten.
    public var streams = 0
    public var rows = 0
    /// Recorded state fingerprints that matched the earlier defect and were set to the fold's.
    public var fingerprints = 0

    public init() {}

    public var isEmpty: Bool { streams == 0 && fingerprints == 0 }
}

/// Rewrites what earlier FlowLogs kept wrong beside the events (`LogDomain.misrecordedFingerprint`): each stream's
/// kept rows from a fold of its events, and the fingerprints that recorded the defect. Events are
/// never touched. Only a backend that keeps a row index has anything to repair (LMDB).
public protocol KeptRowRepairing: AnyObject {
    /// With `dryRun`, only counts what would change.
    func repairKeptRows(dryRun: Bool) throws -> KeptRowRepair
}
