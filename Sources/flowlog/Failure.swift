import ArgumentParser
import FlowLog

/// A failure the CLI reports as one sentence on standard error, with a meaningful exit status.
struct CLIFailure: Error {
    let message: String
    let exitCode: Int32

    static let rejected: Int32 = 1
    /// `bisect`: skipped versions (exit 125 of the check) hide which candidate is the first bad one.
    static let undecided: Int32 = 3
    /// `bisect`: the `--run` check ran past `--timeout` and was killed, as `timeout(1)` reports it.
    static let checkTimedOut: Int32 = 124
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    static let cannotCreate: Int32 = 73
    /// EX_TEMPFAIL: another process runs the projector; try again once it is done.
    static let busy: Int32 = 75
    static let ioError: Int32 = 74
    static let software: Int32 = 70
    static let permission: Int32 = 77

    init(_ message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    /// Every application error's exit status, in one place.
    init(_ error: FlowLogError) {
        let code: Int32 = switch error {
        case .notFound: Self.noInput
        case .missingParent: Self.cannotCreate
        case .notALog, .newerSchema, .damaged, .refusedImport: Self.dataError
        case .permissionDenied: Self.permission
        case .diskFull, .io, .input, .delivery: Self.ioError
        case .busy: Self.busy
        case .output(.missingFolder), .output(.cannotOpen): Self.cannotCreate
        case .output(.cannotFinish): Self.ioError
        case .output: Self.usage
        }
        self.init(error.description, exitCode: code)
    }
}

enum Diagnostics {
    /// Writes one line to standard error.
    static func print(_ message: String) {
        var line = "flowlog: " + message + "\n"
        line.withUTF8 { _ = fwriteUnlocked($0) }
    }

    private static func fwriteUnlocked(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        #if canImport(Glibc)
        return Glibc.write(2, bytes.baseAddress, bytes.count)
        #else
        return 0
        #endif
    }
}

/// Runs a subcommand's body, turning FlowLog's errors into a sentence on stderr and an exit status.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as CLIFailure {
        Diagnostics.print(failure.message)
        throw ExitCode(failure.exitCode)
    } catch let error as FlowLogError {
        let failure = CLIFailure(error)
        Diagnostics.print(failure.message)
        throw ExitCode(failure.exitCode)
    } catch let error as ExitCode {
        throw error
    } catch {
        Diagnostics.print("Unexpected failure: \(error). Please report it with the command that caused it.")
        throw ExitCode(CLIFailure.software)
    }
}

#if canImport(Glibc)
import Glibc
#endif
