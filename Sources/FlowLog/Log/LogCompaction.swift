/// What `flowlog compact` did to a log: its storage's size before and after. On LMDB the size of
/// `data.mdb`; on PostgreSQL the log's tables with their indexes and TOAST (`pg_total_relation_size`).
public struct LogCompaction: Equatable, Sendable {
    public let location: String
    public let bytesBefore: Int
    public let bytesAfter: Int

    public init(location: String, bytesBefore: Int, bytesAfter: Int) {
        (self.location, self.bytesBefore, self.bytesAfter) = (location, bytesBefore, bytesAfter)
    }
}

/// Other processes hold a log open that an operation needs to itself (`flowlog compact` of an LMDB
/// log): `FlowLogError.logInUse`, exit status 75 (try again later) on the command line.
public struct LogInUse: Equatable, Sendable, CustomStringConvertible {
    public let path: String
    /// What needed the log to itself ("compact"), for the sentence.
    public let operation: String
    /// The holders that could be named (Linux's /proc/locks); empty when none could be.
    public let pids: [Int32]

    public init(path: String, operation: String, pids: [Int32]) {
        (self.path, self.operation, self.pids) = (path, operation, pids)
    }

    public var description: String {
        let holders =
            switch pids.count {
            case 0: "another process"
            case 1: "process \(pids[0])"
            default: "processes " + pids.map(String.init).joined(separator: ", ")
            }
        return
            "The log at \(path) is open in \(holders), and \(operation) needs it to itself; nothing was changed. Stop \(pids.count > 1 ? "them" : "it") (a `serve`, `projections run --follow`, `log --follow` or another command on this log), then run \(operation) again."
    }
}
