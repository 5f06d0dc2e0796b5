import CLMDB
import LMDB

/// What an LMDB environment holds, judged in a read transaction before FlowLog opens (and, for a
/// writing command, creates) its databases. Opened read-write, `LMDBEventLog` used to create its
/// databases in whatever environment `--db` named: another program's database gained FlowLog's.
///
/// A FlowLog log is recognised by its `meta` database holding `schema`. Only an environment whose
/// main database is empty (new, or made by `mdb_env_open` alone) may become a log; one holding
/// FlowLog's databases, all empty, without the schema is a creation cut short between its two
/// transactions, and is finished. Anything else is refused before a byte is written.
enum LogRecognition: Equatable {
    /// Nothing in it yet.
    case empty
    /// FlowLog's databases, every one empty, and no schema.
    case unfinishedLog
    case log
    /// Another program's environment: the first names its main database holds.
    case foreign(names: [String])
    /// FlowLog's databases, with content, but no schema.
    case damagedLog

    /// Every database a FlowLog log may hold, its projections' included.
    static let flowLogDatabases = Set(LMDBEventLog.databaseNames + LMDBEventLog.laterDatabaseNames + LMDBEventLog.projectionDatabaseNames)

    static func inspect(_ environment: Environment) throws -> LogRecognition {
        try environment.read { txn in
            let main = try txn.openDatabase(named: nil)
            var names: [String] = []
            try txn.withCursor(main) { cursor in
                var entry = try cursor.first()
                while let (key, _) = entry {
                    names.append(String(decoding: key, as: UTF8.self))
                    entry = try cursor.next()
                }
            }
            guard !names.isEmpty else { return .empty }
            guard names.contains("meta") else {
                // FlowLog's own databases but for meta: a damaged name in the main database's page.
                if names.contains("events"), names.contains("eventIds"), names.contains("streams") {
                    throw LMDBError(
                        code: MDB_CORRUPTED, operation: "reading the main database",
                        detail: "its main database names FlowLog's databases but not \"meta\": its page is damaged; restore the log from a backup")
                }
                return .foreign(names: Array(names.prefix(3)))
            }
            let meta: Database
            do {
                meta = try txn.openDatabase(named: "meta")
            } catch let error as LMDBError where error.isIncompatible {
                // "meta" is a plain record of the main database, not a database: someone else's key.
                return .foreign(names: Array(names.prefix(3)))
            } catch let error as LMDBError where error.isNotFound {
                // Listed in order, yet not found by a search: the main database's page is damaged.
                throw LMDBError(
                    code: MDB_CORRUPTED, operation: error.operation,
                    detail:
                        "its main database lists \"meta\", but a search of it does not find it: its page is damaged; restore the log from a backup")
            }
            if try txn.get(meta, key: Array("schema".utf8)) != nil { return .log }
            guard Set(names).isSubset(of: flowLogDatabases) else { return .damagedLog }
            do {
                for name in names where try txn.count(txn.openDatabase(named: name)) > 0 { return .damagedLog }
            } catch let error as LMDBError where error.isIncompatible {
                return .damagedLog
            }
            return .unfinishedLog
        }
    }

    /// Why an environment that is not a log is refused, for `FlowLogError.notALog`.
    var refusal: String? {
        switch self {
        case .foreign(let names):
            let shown = names.map { $0.count > 40 ? String($0.prefix(40)) + "…" : $0 }.joined(separator: ", ")
            return "it is another program's LMDB environment (its main database holds \(shown)), and FlowLog adds nothing to it"
        case .damagedLog:
            return "it holds FlowLog's databases with content but no log schema (meta has no \"schema\"), so it is damaged; nothing was changed"
        case .empty, .unfinishedLog, .log:
            return nil
        }
    }
}
