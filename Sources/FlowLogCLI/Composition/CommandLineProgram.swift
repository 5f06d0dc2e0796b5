import ArgumentParser
import FlowLogBasics
import FlowLogSystem

/// The program (`flowlog`, or another domain's, `Program.name`): parses the arguments, runs the subcommand and exits with its status.
public enum CommandLineProgram {
    /// Runs the program with `arguments` (without the program's name) and exits.
    public static func run(_ arguments: [String]) -> Never {
        // The core's messages name the commands to run next by the program's name.
        ProgramName.current = Program.name
        ProgramName.firstCommand = Program.firstCommand
        if let unknown = unknownHelpTopic(arguments) {
            Diagnostics.write(unknown)
            exit(ExitStatus.usage.rawValue)
        }
        if arguments == ["--version"] {
            // Nothing to parse: ArgumentParser would build every subcommand's tree to answer it.
            let output = OutputWriter()
            output.lines(of: FlowLogVersion.description)
            output.flush()
            exit(ExitStatus.success.rawValue)
        }
        do {
            let arguments = LogOptions.movingDatabaseBehindSubcommand(arguments)
            FlowLogCommand.offerOnly(arguments)
            var command = try FlowLogCommand.parseAsRoot(arguments)
            do {
                try Observability.start()
            } catch {
                Diagnostics.write(error.message ?? "\(error)")
                exit(error.status.rawValue)
            }
            let path = Observability.path(to: type(of: command)) ?? []
            try Observability.run(&command, path: path, arguments: arguments)
            Observability.finish()
            exit(ExitStatus.success.rawValue)
        } catch {
            // What ArgumentParser's own `main` does, with help through the output writer and
            // usage errors escaped like every other diagnostic.
            Observability.finish()
            let text = FlowLogCommand.fullMessage(for: error)
            let status = FlowLogCommand.exitCode(for: error)
            if !text.isEmpty {
                if status == .success, arguments.contains("--generate-completion-script") {
                    // A shell script, for a shell to read: written as it is.
                    try? FileDescriptorOutput(fileDescriptor: STDOUT_FILENO).write(Array((text + "\n").utf8))
                } else if status == .success {
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

    /// `flowlog help NAME…` for a subcommand that does not exist: ArgumentParser shows the root's
    /// help and exits 0, as if the question had an answer.
    static func unknownHelpTopic(_ arguments: [String]) -> String? {
        guard arguments.first == "help" else { return nil }
        var command: any ParsableCommand.Type = FlowLogCommand.self
        var path: [String] = []
        for name in arguments.dropFirst() where !name.hasPrefix("-") {
            guard let subcommand = command.configuration.subcommands.first(where: { $0.configuration.commandName == name }) else {
                let parent = ([Program.name] + path).joined(separator: " ")
                return "There is no subcommand '\(name)' of \(parent); `\(([Program.name, "help"] + path).joined(separator: " "))` lists them."
            }
            command = subcommand
            path.append(name)
        }
        return nil
    }
}
