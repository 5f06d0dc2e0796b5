import FlowLogSystem

// The details `FlowLogError` carries for failures that are not a log's storage: another process
// holding what a command needs, a collector that kept refusing, an import's refused line.

/// Another process runs this projector now.
public struct ProjectorBusy: Equatable, Sendable, CustomStringConvertible {
    public let projector: String
    /// The holder, when its pid could be read (a holder that has only just locked may not have written it yet).
    public let pid: Int32?
    /// This process held the projector and lost it: it stopped renewing its lease in time (it was
    /// paused, or cut off from the log) and another runner may have taken it over.
    public let lost: Bool

    public init(projector: String, pid: Int32?, lost: Bool = false) { (self.projector, self.pid, self.lost) = (projector, pid, lost) }

    public var description: String {
        if lost {
            return
                "this runner lost its lease on projector \(projector): it could not renew it in time (was it paused, or cut off from the log?) and another runner may run it now; it stopped without moving the projector further. Start it again to stand by (--standby)."
        }
        return
            "projector \(projector) is being run by \(pid.map { "process \($0)" } ?? "another process"); it delivers the new events itself. Wait for it to finish, or stop it, then run this again."
    }
}

/// A collector that kept failing until the delivery deadline: `FlowLogError.delivery`.
public struct DeliveryFailure: Equatable, Sendable, CustomStringConvertible {
    /// The collector's URL without its query (credentials).
    public let url: String
    public let attempts: Int
    public let lastProblem: String

    package init(url: String, attempts: Int, lastProblem: String) {
        (self.url, self.attempts, self.lastProblem) = (url, attempts, lastProblem)
    }

    public var description: String {
        "the collector at \(url) failed \(attempts) attempt\(attempts == 1 ? "" : "s") in a row until the delivery deadline (last: \(lastProblem)); the tracker stopped before these messages and will resume there"
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

/// A line an import refused, and why; nothing was imported.
public struct ImportError: Equatable, Sendable, CustomStringConvertible {
    public let line: Int
    public let problem: String

    public init(line: Int, problem: String) { (self.line, self.problem) = (line, problem) }

    public var description: String {
        "Line \(line) of the import cannot be taken: \(problem). Nothing was imported; mend the line (or the log) and import again."
    }
}

/// Why an output path was refused, or could not be written, as a sentence that says how to mend it.
public enum OutputPathError: Equatable, Sendable, CustomStringConvertible {
    case empty
    case folder(String)
    case insideLMDBEnvironment(String, environment: String)
    case exists(String)
    case unsupported(String, what: String)
    case tooManyLinks(String)
    case closedDescriptor(String, descriptor: Int32)
    case missingFolder(String, folder: String)
    case cannotOpen(String, errno: Int32)
    case cannotFinish(String, errno: Int32)

    public var description: String {
        switch self {
        case .empty:
            "The output path is empty; give a file path, or - for standard output."
        case .folder(let path):
            "\(path) is a folder, not a file; give a file path inside it, such as \(path.hasSuffix("/") ? path : path + "/")events.ndjson."
        case .insideLMDBEnvironment(let path, let environment):
            "\(path) is inside \(environment), an LMDB environment (a FlowLog log, or another program's database); writing there could destroy it. Choose a path outside it; nothing was written."
        case .exists(let path):
            "\(path) exists; give --force to replace it, or choose another path. Nothing was written."
        case .unsupported(let path, let what):
            "\(path) is \(what), which FlowLog does not write to; give a file path, a FIFO, a character device or - for standard output."
        case .tooManyLinks(let path):
            "\(path) is a chain of more than 40 symbolic links (or a loop of them); give the path of the file itself."
        case .closedDescriptor(let path, let descriptor):
            "\(path) names descriptor \(descriptor), which this process does not have open; open it in the shell (for example \(descriptor)>FILE) or give a file path."
        case .missingFolder(let path, _):
            "Cannot write \(path).partial: \(String(cString: strerror(ENOENT))). Check that the folder exists and is writable."
        case .cannotOpen(let path, let code):
            "Cannot write \(path).partial: \(String(cString: strerror(code))). Check that the folder exists and is writable."
        case .cannotFinish(let path, let code):
            "Cannot finish \(path): \(String(cString: strerror(code)))."
        }
    }
}
