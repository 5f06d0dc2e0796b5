public import Deciding
public import FlowLogBasics

/// What a log's metadata fixes for it: the log schema, which says which version of each event kind
/// its records may hold, and the currency of amounts that name none.
///
/// A new log gets the newest schema and the default currency it was created with (`flowlog init
/// --currency`, else USD). Logs written before either existed read as schema 1 and USD. The
/// schema moves only when told (`flowlog upgrade`), because the builds before a schema refuse a
/// log of it; the currency never moves once the log holds an event.
///
/// The retention (`flowlog retain --set 90d`) is stored with the log rather than in each process's
/// options, so that every `projections run --follow` and `serve` of the log applies the same one,
/// and a new one is told once; `nil` keeps every session.
public struct LogSettings: Equatable, Sendable {
    public var logSchema: Int
    public var defaultCurrency: String
    public var retention: RetentionPeriod?

    public init(logSchema: Int, defaultCurrency: String, retention: RetentionPeriod? = nil) {
        (self.logSchema, self.defaultCurrency, self.retention) = (logSchema, defaultCurrency, retention)
    }

    /// The log schema this build writes into new logs and upgrades old ones to. Every build reads
    /// every schema up to its own.
    ///
    /// - 1: every event kind at version 1.
    /// - 2: event kinds at the versions the domain's kinds declare for schema 2 (`flowlog schema events`).
    /// - 3: records in the salted layout (`RecordLayout.salted`), whose personal part `flowlog
    ///   forget` can erase without breaking the hash chain.
    /// - 4: an LMDB log may hold pending index entries and kept rows in batch records (one per
    ///   commit), which builds before it would not read; records and PostgreSQL logs are as at 3.
    /// - 5: a record written with a W3C trace context keeps it (`RecordLayout.traced`); a PostgreSQL
    ///   log's events gain `traceparent` and `tracestate` columns.
    public static let newestLogSchema = 5

    /// The layout this log writes its records in.
    public var recordLayout: RecordLayout { RecordLayout(logSchema: logSchema) }

    /// Throws unless `changed` keeps this log schema or raises it: every backend's
    /// `updateSettings` asks, since builds of a lower schema would read records they cannot.
    public func checkSchemaChange(to changed: LogSettings, location: String) throws {
        guard changed.logSchema >= logSchema else {
            throw FlowLogError.input("A log's schema is never lowered (\(location) is at schema \(logSchema)).")
        }
    }

    /// The currency of a log whose metadata names none (every log before logs had one), SPEC §6:
    /// a rule of the log's, whatever its domain makes of a currency (`LogDomain.decisionContext`).
    public static let currencyOfEarlierLogs = "USD"

    /// A log created now, in `currency` (USD unless `flowlog init --currency` names another).
    public static func newLog(currency: String = currencyOfEarlierLogs) -> LogSettings {
        LogSettings(logSchema: newestLogSchema, defaultCurrency: currency)
    }

    /// Whether this log may hold every version of every event kind (a log of the newest schema
    /// the kinds need): the common case, which then asks nothing of each event.
    @inlinable
    public var admitsEveryEvent: Bool { logSchema >= LogDecider.Event.kinds.newestLogSchema }

    /// Whether this log may hold `event` as it would be stored (the lowest version that holds it).
    @inlinable
    public func admits(_ event: LogDecider.Event) -> Bool {
        guard !admitsEveryEvent else { return true }
        let info = LogDecider.Event.kinds.info(of: event)
        return EventKindTable.storedVersion(of: event) <= info.newestVersion(inLogSchema: logSchema)
    }

    /// The refusal of an event this log's schema cannot hold, naming `flowlog upgrade`.
    public func refusal(of event: LogDecider.Event, location: String) -> Rejection {
        let info = LogDecider.Event.kinds.info(of: event)
        let needed = info.versions.first { $0.version == EventKindTable.storedVersion(of: event) }
        let version = needed?.version ?? info.version
        return Rejection(
            .logUpgradeRequired,
            """
            This command records \(info.typeName) version \(version), which a log of schema \(logSchema) cannot hold (version \(version) \
            \(needed?.change ?? "is newer"); builds before it read that schema). Once every writer of \(location) runs this FlowLog, \
            raise the log with `\(ProgramName.current) upgrade --db \(location)`, then send the command again.
            """)
    }
}
