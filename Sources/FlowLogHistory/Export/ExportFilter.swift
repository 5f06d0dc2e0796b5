import Deciding
public import FlowLogBasics
public import FlowLogStore

/// Which events an export takes: every condition given must hold (streams and types: any of those listed).
public struct ExportFilter: Sendable {
    public var streams: Set<String> = []
    /// Event type names; an export takes the kinds they name.
    public var types: Set<String> = [] {
        didSet { kinds = Set(types.compactMap { LogDecider.Event.kinds.info(typeName: $0)?.kind }) }
    }
    private var kinds: Set<LogDecider.Event.Kind> = []
    /// Inclusive global position bounds.
    public var fromPosition: Int = 1
    public var toPosition: Int?
    /// `since` is inclusive, `until` exclusive, so consecutive windows never share an event.
    public var since: Timestamp?
    public var until: Timestamp?
    /// Whether the log's own streams (the erasure audit trail, `SystemStreams`) come along without
    /// being named in `streams` (`--system`); a stream named there always does.
    public var includesSystemStreams = false
    /// Correlation ids: only events carrying one of them (a conversation across sessions; `pull
    /// --correlation-id` finds its streams so).
    public var correlationIds: Set<String> = []

    public init() {}

    @inline(__always)
    public func accepts(_ record: RecordedEvent) -> Bool {
        if !streams.isEmpty, !streams.contains(record.stream) { return false }
        if streams.isEmpty, !includesSystemStreams, SystemStreams.isReserved(record.stream) { return false }
        if !types.isEmpty, !kinds.contains(LogDecider.Event.kinds.info(of: record.event).kind) { return false }
        if let since, record.timestamp < since { return false }
        if let until, record.timestamp >= until { return false }
        if !correlationIds.isEmpty, !correlationIds.contains(record.correlationId ?? "") { return false }
        return true
    }

    /// Every event type name, for validating `--type`.
    public static var eventTypes: [String] { LogDecider.Event.kinds.typeNames }
}
