public import Deciding
package import FlowLogBasics

/// A stream's state as storage holds it: a value the backends fold events into, keep as snapshots,
/// heads and read models, and hand back, without knowing what it holds.
///
/// A snapshot or a head keeps the state *without* its kept rows (only how many there are): the
/// rows live in storage's own index, once, so a stream with 70,000 orders does not copy them
/// into every snapshot. `restoreKeptRows` puts them back after a read.
public struct StreamState: Equatable, Sendable {
    public var value: LogDecider.State

    @inlinable public init(_ value: LogDecider.State) { self.value = value }

    public static var initial: StreamState { StreamState(LogDecider.initialState) }

    /// The version of the reducers' meaning: a snapshot stored under another is not trusted.
    public static var reducerVersion: Int { LogDecider.reducerVersion }

    /// Folds one more event in.
    @inlinable public mutating func apply(_ event: RecordedEvent) { LogDecider.evolve(&value, event.event) }

    /// How many rows the state keeps beside the events (dropped ones included).
    public var keptRowCount: Int { LogDecider.keptRowCount(of: value) }

    /// Drops every kept row but the latest, keeping their number: a fold that feeds a backend
    /// with a row index of its own needs no more, and would otherwise grow with every row.
    package mutating func keepOnlyLatestKeptRow() { LogDecider.keepOnlyLatestKeptRow(&value) }

    /// Puts rows read back from storage's index into the state, whole or slim (`KeptRows(latestOf:)`).
    public mutating func restoreKeptRows(_ rows: KeptRows) {
        if !rows.restoreSlim(into: &value) { LogDecider.restoreKeptRows(rows.rows, into: &value) }
    }

    // MARK: Bytes

    /// The whole state, kept rows included (read models, and snapshots of backends without a row index).
    package func encode(into writer: inout BinaryWriter) {
        writer.reset()
        LogDecider.encode(value, withoutKeptRows: false, into: &writer)
    }

    package static func decode(_ bytes: UnsafeRawBufferPointer) -> StreamState? { LogDecider.decodeState(bytes).map(StreamState.init) }

    /// The state without its kept rows, and how many there are: what snapshots and heads hold.
    package func encodeWithoutKeptRows(into writer: inout BinaryWriter) {
        writer.reset()
        LogDecider.encode(value, withoutKeptRows: true, into: &writer)
    }

    package static func decodeWithoutKeptRows(_ bytes: UnsafeRawBufferPointer) -> (state: StreamState, keptRowCount: Int)? {
        LogDecider.decodeStateWithoutKeptRows(bytes).map { (StreamState($0.state), $0.keptRowCount) }
    }

    /// A state folded with `keepOnlyLatestKeptRow`, with its latest kept row: what an import in
    /// bounded memory sets aside for a stream it may meet again (`ImportStreamSpill`).
    package func encodeKeepingLatestRow(into writer: inout BinaryWriter) {
        writer.reset()
        LogDecider.encode(keepingLatestKeptRow: value, into: &writer)
    }

    package static func decodeKeepingLatestRow(_ bytes: UnsafeRawBufferPointer) -> StreamState? {
        LogDecider.decodeStateKeepingLatestKeptRow(bytes).map(StreamState.init)
    }

    /// A 64-bit digest of the state, kept per event so that a replay can prove it still means
    /// what the log meant (`replay --verify`).
    package func fingerprint(scratch writer: inout BinaryWriter) -> UInt64 { LogDecider.fingerprint(value, scratch: &writer) }

    // MARK: Columns

    /// The typed columns the domain declared for the read model's table of states.
    public static var columns: [(name: StaticString, type: ReadModelColumn<LogDecider.State>.ValueType)] {
        LogDecider.stateColumns.map { ($0.name, $0.type) }
    }

    /// This state's values of those columns, in their order.
    public var columnValues: [ReadModelColumn<LogDecider.State>.Value] { LogDecider.stateColumns.map { $0.value(value) } }
}
