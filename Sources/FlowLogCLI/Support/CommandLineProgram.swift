import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// The `flowlog` program: parses the arguments, runs the subcommand and exits with its status.
public enum CommandLineProgram {
    /// Runs `flowlog` with `arguments` (without the program's name) and exits.
    public static func run(_ arguments: [String]) -> Never {
        do {
            var command = try FlowLogCommand.parseAsRoot(LogOptions.movingDatabaseBehindSubcommand(arguments))
            try command.run()
            exit(ExitStatus.success.rawValue)
        } catch {
            // What ArgumentParser's own `main` does, with help through the output writer and
            // usage errors escaped like every other diagnostic.
            let text = FlowLogCommand.fullMessage(for: error)
            let status = FlowLogCommand.exitCode(for: error)
            if !text.isEmpty {
                if status == .success {
                    let output = OutputWriter()
                    output.lines(of: text)
                    output.flush()
                } else {
                    Diagnostics.writeUsage(text)
                }
            }
            exit(status.rawValue)
        }
    }
}
