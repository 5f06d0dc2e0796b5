/// A stream folded up to some event: its state, and the version of the last event folded in.
///
/// Why a type: a stream is folded into its state in many places (each backend's read of a
/// stream, from the start or from a snapshot or a head; a replay; the summaries; an import; the
/// read models), and each kept a state and a version in two variables that its own loop moved.
/// The rule is written here once: the state and the version move together, and the version is
/// the last event's own (a fold that starts at a snapshot starts at the snapshot's version), so
/// no site can fold an event and forget the version, or count versions instead of reading them.
///
/// The fold is inlined into the loops that call it, as `StreamState.apply` is: it is the work
/// of every read, replay and export of a stream.
public struct StreamFold: Equatable, Sendable {
    public var state: StreamState
    /// The version of the last event folded in (0: none, from the initial state). Only a fold
    /// moves it, so that it is always the version of the state beside it.
    @inlinable public var version: Int { foldedVersion }
    @usableFromInline var foldedVersion: Int

    /// A fold that starts at `state`, taken at `version` (a snapshot's, a head's, or 0 for the initial state).
    @inlinable public init(_ state: StreamState = .initial, version: Int = 0) {
        self.state = state
        foldedVersion = version
    }

    /// A fold that starts where a read of the log left off.
    @inlinable public init(_ folded: (state: StreamState, version: Int)) { self.init(folded.state, version: folded.version) }

    /// A fold that starts from the domain's value at `version`.
    @inlinable public init(_ value: LogDecider.State, version: Int = 0) { self.init(StreamState(value), version: version) }

    /// A fold of no event yet: the initial state at version 0.
    @inlinable public static var initial: StreamFold { StreamFold() }

    /// Folds one more event in: the state moves past it, and the version becomes its version.
    @inlinable @inline(__always) public mutating func fold(_ event: RecordedEvent) {
        state.apply(event)
        foldedVersion = event.version
    }

    /// The state and the version, as the logs' reads hand them back.
    @inlinable public var folded: (state: StreamState, version: Int) { (state, version) }

    /// The domain's value and the version.
    @inlinable public var value: (state: LogDecider.State, version: Int) { (state.value, version) }
}
