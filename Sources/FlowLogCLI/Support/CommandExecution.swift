import ArgumentParser

/// Runs a subcommand's body with standard output, and is the one place where a failure becomes a
/// sentence on standard error and an exit status: every subcommand's `run()` goes through here.
enum CommandExecution {
    static func run(_ body: (OutputWriter) throws -> Void) throws {
        let output = OutputWriter()
        do {
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
