public import Deciding
public import FlowLogBasics

/// What the log needs of a domain beyond deciding: its states and kept rows as bytes (snapshots,
/// heads, the row index, fingerprints) and what a writer's cache needs to keep its states well.
///
/// `Decider` is pure and knows no bytes; this is the domain's side of storage, written once per
/// domain beside its binding. The core reaches it only through `StreamState` and `KeptRow` (what
/// backends store) and through the pipeline's cache, never through a domain's types, so a second
/// domain brings its own conformance and changes nothing below it. The bytes are the log's: a
/// layout once written is read for ever (every fixture under `Fixtures/`), so a conformance may
/// add layouts but never change one.
///
/// Public, with its helpers inlinable: the core calls them from other modules, where a `package`
/// function is neither inlined nor specialised for the domain (each became a generic call that
/// looked up type metadata, a percent of `verify`'s instructions).
public protocol LogDomain: Decider where Event: DomainEvent {
    /// The whole state, into an empty `writer` (the core resets a writer it reuses before it
    /// hands it over, so an encoder may append from the start); with `withoutKeptRows`, their number instead of the rows (a snapshot of a
    /// log that keeps rows apart, so a long history is not copied into every snapshot).
    static func encode(_ state: State, withoutKeptRows: Bool, into writer: inout BinaryWriter)
    /// What `encode(_:withoutKeptRows: false, into:)` wrote; `nil` for bytes no encoder wrote.
    static func decodeState(_ bytes: UnsafeRawBufferPointer) -> State?
    /// What `encode(_:withoutKeptRows: true, into:)` wrote: the state without its rows, and how many it counts.
    static func decodeStateWithoutKeptRows(_ bytes: UnsafeRawBufferPointer) -> (state: State, keptRowCount: Int)?
    /// A state holding its latest kept row only (`keepOnlyLatestKeptRow`): the state without its
    /// rows, their number, then the latest.
    static func encode(keepingLatestKeptRow state: State, into writer: inout BinaryWriter)
    /// What `encode(keepingLatestKeptRow:into:)` wrote.
    static func decodeStateKeepingLatestKeptRow(_ bytes: UnsafeRawBufferPointer) -> State?

    static func encode(keptRow: KeptRow, into writer: inout BinaryWriter)
    /// One kept row as `encode(keptRow:into:)` wrote it, from where `reader` is; `nil` for a row
    /// no encoder wrote (an empty key, unless `allowingEmptyKey`: what a repair reads past).
    static func readKeptRow(_ reader: inout BinaryReader, allowingEmptyKey: Bool) throws(BinaryReader.OutOfBounds) -> KeptRow?
    /// Steps over one kept row as `readKeptRow` reads it, giving its key's bytes (what
    /// `keptRowKeyHash` hashes) without making the row.
    static func readKeptRowKey(_ reader: inout BinaryReader) throws(BinaryReader.OutOfBounds) -> UnsafeRawBufferPointer?

    /// The fingerprint of `state` were its last kept row `lastKeptRow`: the hash of what a decision
    /// could see, recorded beside each event so that `replay --verify` can tell whether today's
    /// reducers still mean what the log meant. A repair asks it for a row the state does not hold.
    static func fingerprint(_ state: State, lastKeptRow: KeptRow?, scratch writer: inout BinaryWriter) -> UInt64
    /// The fingerprint of a state as it is, with its last kept row. It runs after every command and
    /// every replayed event, so a domain implements it on its own type: the default, generic over
    /// the domain, is not specialised where another module calls it.
    static func fingerprint(_ state: State, scratch writer: inout BinaryWriter) -> UInt64

    /// The fingerprint an earlier build of the domain's binding recorded for `state` where it
    /// differs from today's through a known defect (what a repair may replace, and `replay
    /// --verify` names as that defect); `nil` where no known defect applies.
    static func misrecordedFingerprint(of state: State, scratch writer: inout BinaryWriter) -> UInt64?

    /// The state's members of its JSON face (SPEC §5), after the `stream` and `version` the core
    /// writes: each a key and its value, every key always present. Between the items of a list that
    /// may be long, `drain` is called with the writer: it writes out what the writer holds once
    /// that is large.
    static func writeStateMembers(_ state: State, into json: inout JSONWriter, drain: ((inout JSONWriter) -> Void)?)
    /// Members the state's JSON face gained after its first release, with the values that mean
    /// what a state written before them meant, so that comparing an older build's state with
    /// today's does not call their absence a change.
    static var stateMembersAddedLater: [String: [JSONValue]] { get }

    /// `decide`'s state checks alone, for a writer that ran the command's field checks
    /// (`fieldViolation`) earlier: SPEC §3 puts the command-id and version checks between the two.
    /// Its refusals are answers with the domain's codes (`Rejection`).
    static func decideValidated(_ command: Command, state: State, context: Context) throws(Rejection) -> [Event]

    /// What every decision of a log is made with besides its command and state (`Decider.Context`),
    /// from the log's settings: the currency of amounts that name none (`flowlog init --currency`).
    static func decisionContext(defaultCurrency: String) -> Context

    /// Makes a state that will decide many commands cheap to decide against (an index of long
    /// kept rows, built once instead of searched for each command). Most domains need nothing.
    static func readyForDeciding(_ state: inout State)
    /// Bytes a state holds in a writer's cache, roughly: what the cache's budget counts.
    static func estimatedCost(of state: State) -> Int
    /// Drops every kept row but the latest (`keptRowCount(of:)` still counts them all).
    static func keepOnlyLatestKeptRow(_ state: inout State)
    /// As `keepOnlyLatestKeptRow`, for a writer's cache: what `needsKeptRows` needs to rule out
    /// most commands stays (`restoreSlimKeptRows`).
    static func slimForCache(_ state: inout State)
}

extension LogDomain {
    @inlinable public static func readyForDeciding(_ state: inout State) {}

    @inlinable public static func misrecordedFingerprint(of state: State, scratch writer: inout BinaryWriter) -> UInt64? { nil }

    @inlinable public static var stateMembersAddedLater: [String: [JSONValue]] { [:] }

    @inlinable public static func fingerprint(_ state: State, scratch writer: inout BinaryWriter) -> UInt64 {
        fingerprint(state, lastKeptRow: keptRows(of: state).last, scratch: &writer)
    }

    /// Kept rows up to which a writer's cache keeps a state whole: 16 of the shop's orders are
    /// under 1 KB, and a session with a few orders is the common case.
    @inlinable public static var rowsKeptWhole: Int { 16 }

    /// Whether a writer's cache keeps this state without its older kept rows (where the log keeps them apart).
    @inlinable public static func isSlimmedForCache(_ state: State) -> Bool { keptRowCount(of: state) > rowsKeptWhole }

    /// Whether the state holds every row it counts, so that any command may be decided against it.
    @inlinable public static func holdsAllKeptRows(_ state: State) -> Bool { keptRows(of: state).count == keptRowCount(of: state) }

    /// An event to decode records into, whatever it is: the first kind's blank one.
    @inlinable public static var placeholderEvent: Event { Event.kinds.all[0].blankEvent }

    /// One kept row from bytes holding it alone.
    @inlinable public static func decodeKeptRow(_ bytes: UnsafeRawBufferPointer, allowingEmptyKey: Bool = false) -> KeptRow? {
        var reader = BinaryReader(bytes)
        return (try? readKeptRow(&reader, allowingEmptyKey: allowingEmptyKey)) ?? nil
    }

    /// Reads the `count` kept rows of a row page (rows encoded one after another, then a checksum)
    /// with `take`, each from where the one before ended. `false` when the page is damaged, `take`
    /// refuses a row, or the page holds more than `count`.
    @inline(__always)
    @inlinable public static func readKeptRows(inPage bytes: UnsafeRawBufferPointer, count: Int, _ take: (inout BinaryReader) -> Bool) -> Bool {
        guard bytes.count > 8, let body = BinaryWriter.verifiedBody(of: bytes) else { return false }
        var reader = BinaryReader(body)
        for _ in 0..<count {
            guard take(&reader) else { return false }
        }
        return reader.remaining == 0
    }

    /// Appends the `count` kept rows of a row page. A page that is damaged or holds another number
    /// of rows appends nothing.
    @inlinable public static func appendKeptRows(fromPage bytes: UnsafeRawBufferPointer, count: Int, to rows: inout [KeptRow]) -> Bool {
        let start = rows.count
        let whole = readKeptRows(inPage: bytes, count: count) { reader in
            guard let row = (try? readKeptRow(&reader, allowingEmptyKey: false)) ?? nil else { return false }
            rows.append(row)
            return true
        }
        if !whole { rows.removeSubrange(start...) }
        return whole
    }
}
