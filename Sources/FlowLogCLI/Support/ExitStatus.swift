/// The exit statuses of `flowlog` (README's table; sysexits.h where one fits).
enum ExitStatus: Int32 {
    case success = 0
    /// A command was rejected (for `send`: at least one line); `replay --verify` found a disagreement.
    case rejected = 1
    /// `bisect`: skipped versions (exit 125 of the check) hide which candidate is the first bad one.
    case undecided = 3
    /// EX_USAGE: a bad option or value, or an output path FlowLog will not write.
    case usage = 64
    /// EX_DATAERR: not a FlowLog log, a damaged log, a log of a newer schema, a refused import, an
    /// input file that is not what it should be (out of order, not an export, covering nothing).
    case dataError = 65
    /// EX_NOINPUT: no log at the path, no such stream in it, or no such input file.
    case noInput = 66
    /// EX_SOFTWARE: an unexpected failure (a bug).
    case software = 70
    /// EX_CANTCREAT: the log or an output file cannot be created there.
    case cannotCreate = 73
    /// EX_IOERR: an I/O error (a full disk), or a collector that keeps refusing.
    case ioError = 74
    /// EX_TEMPFAIL: another process runs the projector, or holds open the log `compact` needs to
    /// itself; try again once it is done.
    case busy = 75
    /// EX_NOPERM: permission denied.
    case permission = 77
    /// `bisect`: the `--run` check ran past `--timeout` and was killed, as `timeout(1)` reports it.
    case checkTimedOut = 124
}
