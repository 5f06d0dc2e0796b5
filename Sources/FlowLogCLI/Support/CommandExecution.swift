import ArgumentParser
import FlowLogSystem

/// Runs a subcommand's body with standard output, and is the one place where a failure becomes a
/// sentence on standard error and an exit status: every subcommand's `run()` goes through here.
enum CommandExecution {
    static func run(_ body: (OutputWriter) throws -> Void) throws {
        let output = OutputWriter()
        do {
            #if DEBUG
                try FailureForTesting.throwIfAsked()
            #endif
            try body(output)
            output.flush()
        } catch {
            // What was written before the failure comes first, as it happened.
            output.flush()
            let failure = CLIFailure(error)
            if let message = failure.message { Diagnostics.write(message) }
            throw ExitCode(failure.status.rawValue)
        }
    }
}

#if DEBUG
    /// Debug builds only (the tests' builds): `FLOWLOG_TEST_UNEXPECTED_FAILURE` set makes every
    /// subcommand throw an error FlowLog does not know, as a bug would, so that the exit status of an
    /// unexpected failure (70) can be provoked and checked like every other (README's table).
    private struct FailureForTesting: Error, CustomStringConvertible {
        var description: String { "a failure injected by FLOWLOG_TEST_UNEXPECTED_FAILURE" }

        static func throwIfAsked() throws {
            if getenv("FLOWLOG_TEST_UNEXPECTED_FAILURE") != nil { throw FailureForTesting() }
        }
    }
#endif
