import FlowLogBasics
import FlowLogStore
import FlowLogSystem

/// A failure the CLI reports as one sentence on standard error (or none, when the output already
/// told it), with the exit status it means. `init(_: any Error)` is the one mapping from an error
/// to an exit status; `CommandExecution` is the one place that applies it.
struct CLIFailure: Error {
    /// `nil`: nothing more to say (the answers on standard output already name what went wrong).
    let message: String?
    let status: ExitStatus

    init(_ message: String, _ status: ExitStatus) {
        self.message = message
        self.status = status
    }

    /// A status with no sentence: a `send` with rejected lines, a `verify` that found damage.
    init(silently status: ExitStatus) {
        self.message = nil
        self.status = status
    }

    /// Every application error's exit status, in one place.
    init(_ error: FlowLogError) {
        let status: ExitStatus =
            switch error {
            case .notFound: .noInput
            case .missingParent: .cannotCreate
            case .notALog, .newerSchema, .damaged, .damagedFile, .refusedImport, .invalidInput: .dataError
            case .unreadableInput(_, let errorNumber):
                errorNumber == EACCES || errorNumber == EPERM ? .permission : errorNumber == ENOENT || errorNumber == ENOTDIR ? .noInput : .ioError
            case .permissionDenied: .permission
            case .diskFull, .io, .input, .delivery: .ioError
            case .busy, .logInUse: .busy
            case .output(.missingFolder), .output(.cannotOpen): .cannotCreate
            case .output(.cannotFinish): .ioError
            case .output: .usage
            }
        self.init(error.description, status)
    }

    /// Any error a subcommand's body throws: FlowLog's, the CLI's own, or a bug.
    init(_ error: any Error) {
        switch error {
        case let failure as CLIFailure: self = failure
        case let error as FlowLogError: self.init(error)
        case let refusal as ForgetRefusal:
            switch refusal {
            case .unknownStream: self.init(refusal.description, .noInput)
            case .upgradeRequired: self.init(refusal.description, .dataError)
            }
        default: self.init("Unexpected failure: \(error). Please report it with the command that caused it.", .software)
        }
    }
}
