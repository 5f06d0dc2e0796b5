import FlowLogBasics
public import FlowLogStore
import LMDB

/// The log's settings in its `meta` database: `schema` (8 bytes, little-endian), written when the
/// log is created and raised by `flowlog upgrade`, and `currency` (three letters), written by
/// `flowlog init --currency`; a log without it is in USD, as every log before currencies was; and
/// `retention` (text such as `90d`), written by `flowlog retain --set` and absent when off. Builds
/// before retention ignore the key, so setting one needs no new log schema.
extension LMDBEventLog {
    static let schemaKey = Array("schema".utf8)
    static let currencyKey = Array("currency".utf8)
    static let retentionKey = Array("retention".utf8)

    public func settings() throws -> LogSettings {
        try reading { txn in try settings(txn) }
    }

    /// The layout new records take: that of the log's schema as this transaction sees it.
    func recordLayout(_ txn: Transaction) throws -> RecordLayout {
        RecordLayout(logSchema: try txn.get(meta, key: Self.schemaKey).map { Keys.decodeInt($0) } ?? 1)
    }

    func settings(_ txn: Transaction) throws -> LogSettings {
        let schema = try txn.get(meta, key: Self.schemaKey).map { Keys.decodeInt($0) } ?? 1
        let currency = try txn.get(meta, key: Self.currencyKey).map { String(decoding: $0, as: UTF8.self) }
        let retention = try txn.get(meta, key: Self.retentionKey).flatMap { RetentionPeriod(String(decoding: $0, as: UTF8.self)) }
        return LogSettings(logSchema: schema, defaultCurrency: currency ?? LogSettings.currencyOfEarlierLogs, retention: retention)
    }

    public func updateSettings(_ change: (LogSettings, Bool) throws -> LogSettings) throws -> LogSettings {
        do {
            return try environment.write { txn in
                let current = try settings(txn)
                let empty = try txn.withCursor(eventsDB) { try $0.first() == nil }
                let changed = try change(current, empty)
                if changed.logSchema != current.logSchema {
                    try current.checkSchemaChange(to: changed, location: path)
                    if changed.recordLayout.isSalted != current.recordLayout.isSalted { try rewriteRecords(into: changed.recordLayout, txn) }
                    try txn.put(meta, key: Self.schemaKey, value: withUnsafeBytes(of: UInt64(changed.logSchema).littleEndian, Array.init))
                }
                if changed.defaultCurrency != current.defaultCurrency {
                    try txn.put(meta, key: Self.currencyKey, value: Array(changed.defaultCurrency.utf8))
                }
                if changed.retention != current.retention {
                    if let retention = changed.retention {
                        try txn.put(meta, key: Self.retentionKey, value: Array(retention.description.utf8))
                    } else {
                        _ = try txn.delete(meta, key: Self.retentionKey)
                    }
                }
                return changed
            }
        } catch let error as LMDBError {
            throw FlowLogError.writing(error, path: path)
        }
    }
}
