import CLMDB
import CLMDBGuard

/// A failed LMDB call: the C return code, LMDB's own message for it, and the operation that failed.
///
/// The code is kept as it is (an `errno` value or one of LMDB's `MDB_*` codes) so that callers can
/// react to specific conditions, such as a full map, without parsing text.
public struct LMDBError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: Int32
    public let operation: String
    /// What FlowLog found, where it says more than LMDB's text for the code.
    public let detail: String?
    /// Where a key or value LMDB returned lay outside the data file's used pages (`MapBounds`).
    public let damage: Damage?

    /// A key or value outside the used pages: the database it was read from, the page that holds
    /// its node when that is known, and its key when the key itself could be read.
    public struct Damage: Equatable, Sendable {
        public let database: String
        public let page: Int?
        public let key: [UInt8]?
    }

    public init(code: Int32, operation: String, detail: String? = nil, damage: Damage? = nil) {
        self.code = code
        self.operation = operation
        self.detail = detail
        self.damage = damage
    }

    /// The detail given, or LMDB's description of the code (`mdb_strerror`, which also covers
    /// `errno` values).
    public var message: String { detail ?? String(cString: mdb_strerror(code)) }

    public var description: String { "\(operation) failed: \(message) (\(code))" }

    public var isMapFull: Bool { code == MDB_MAP_FULL }
    public var isMapResized: Bool { code == MDB_MAP_RESIZED }
    public var isNotFound: Bool { code == MDB_NOTFOUND }
    /// The file is not an LMDB environment, or one of an incompatible format.
    public var isInvalidFile: Bool { code == MDB_INVALID || code == MDB_VERSION_MISMATCH }
    public var isKeyExists: Bool { code == MDB_KEYEXIST }
    /// A database opened with flags it was not made with, or a name that is a plain record, not a database.
    public var isIncompatible: Bool { code == MDB_INCOMPATIBLE }
    /// The file's pages are damaged.
    public var isCorrupted: Bool { code == MDB_CORRUPTED || code == MDB_PAGE_NOTFOUND }
    /// The transaction failed before (LMDB marks it when it meets a damaged page) and refuses to go on.
    public var isFailedTransaction: Bool { code == MDB_BAD_TXN }

    /// A `.noOverwrite` put that found its key taken.
    public static func keyExists(_ operation: String) -> LMDBError { LMDBError(code: MDB_KEYEXIST, operation: operation) }
}

@inline(__always)
func check(_ code: Int32, _ operation: @autoclosure () -> String) throws(LMDBError) {
    if code == FLOWLOG_GUARD_FAULT {
        throw LMDBError(
            code: MDB_CORRUPTED, operation: operation(),
            detail: "LMDB faulted reading a damaged page (a signal, caught while it read the map)")
    }
    if code != 0 { throw LMDBError(code: code, operation: operation()) }
}
