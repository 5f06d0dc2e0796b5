/// The shape every domain under a FlowLog log takes: a state, the commands that may change it, the
/// events that record a change, `decide` and `evolve`, and what the log should keep beside the
/// events. The log's storage is written against this shape, through the core's `StreamState` and
/// `KeptRow`, and never against a domain's own types: a second domain conforms here and the
/// backends do not change.
///
/// `decide` and `evolve` must be pure (no I/O, no clock, no randomness), so that replaying the
/// same events always rebuilds the same state.
public protocol Decider {
    associatedtype State: Equatable & Sendable
    associatedtype Command
    associatedtype Event: Equatable & Sendable
    /// What a decision may need besides the command and the state, fixed for the log's life.
    associatedtype Context
    associatedtype Failure: Error
    /// A row the domain keeps beside the events, per stream, in the order the events add them (the
    /// cart's orders). Rows only ever grow, so a snapshot stores how many there are and storage
    /// keeps the rows once, in an index it writes in the append's own transaction.
    associatedtype KeptRow: Equatable & Sendable

    static var initialState: State { get }
    /// The version of the reducers' meaning: snapshots written under another are never trusted.
    static var reducerVersion: Int { get }
    static func decide(_ command: Command, state: State, context: Context) throws(Failure) -> [Event]
    static func evolve(_ state: inout State, _ event: Event)

    /// The row `event` adds to its stream's kept rows, if any.
    static func keptRow(for event: Event) -> KeptRow?
    /// The state's kept rows, oldest first.
    static func keptRows(of state: State) -> [KeptRow]
    /// How many rows the state has kept: `keptRows(of:).count` unless the state holds fewer than
    /// it counts (a fold that dropped all but its latest).
    static func keptRowCount(of state: State) -> Int
    /// Whether deciding `command` against `state`, which may hold fewer kept rows than it counts,
    /// needs the rows it lacks (the cart's duplicate-order check, for an id it cannot rule out). A
    /// writer caches long states without their older rows and reloads a stream's whole state
    /// before deciding such a command.
    static func needsKeptRows(_ command: Command, state: State) -> Bool
    /// Whether `command` may ever need kept rows a state lacks, before any state is looked at:
    /// `false` lets a writer skip the question for most commands. `needsKeptRows` still decides.
    static func mayNeedKeptRows(_ command: Command) -> Bool
    /// Puts rows read back from storage into a state decoded without them.
    static func restoreKeptRows(_ rows: [KeptRow], into state: inout State)
    /// What a slim state remembers of a row it no longer holds, so that `needsKeptRows` can still
    /// rule out most commands: a hash of the row's key, from the key's UTF-8 (storage hashes the
    /// keys of stored rows without making the rows).
    static func keptRowKeyHash(utf8 key: UnsafeRawBufferPointer) -> UInt64
    /// Puts a slim history into a state decoded without its rows, as a writer's cache keeps a long
    /// one: the latest row whole, and the `droppedKeyHashes` (`keptRowKeyHash`) of the rows before
    /// it, oldest first. `keptRowCount(of:)` then counts them all.
    static func restoreSlimKeptRows(latest: KeptRow, droppedKeyHashes: [UInt64], into state: inout State)
    /// The row with what may name the person blanked (its personal columns, and anything else):
    /// what the read model keeps of a forgotten stream's rows.
    static func anonymized(_ row: KeptRow) -> KeptRow

    /// The typed columns of the storage read model's table of states, beside the encoded state.
    static var stateColumns: [ReadModelColumn<State>] { get }
    /// The typed columns of its table of kept rows.
    static var keptRowColumns: [ReadModelColumn<KeptRow>] { get }
    /// A kept row read back from its columns, in `keptRowColumns`' order.
    static func keptRow(fromColumns values: [ReadModelColumn<KeptRow>.Value]) -> KeptRow?

    /// What every state the rules make keeps, for `bisect` to hunt for the first event that broke one.
    static var invariants: [Invariant<State>] { get }
}

extension Decider {
    public static func keptRowCount(of state: State) -> Int { keptRows(of: state).count }
    /// Every command, unless the domain says otherwise: the safe answer.
    public static func needsKeptRows(_ command: Command, state: State) -> Bool { true }
    public static func mayNeedKeptRows(_ command: Command) -> Bool { true }
}
