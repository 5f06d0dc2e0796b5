import ArgumentParser

/// The root of the command line: the program's name, its typed commands' groups (derived from the
/// command kinds' declarations) and its subcommands, one per feature in a file of its own, as the
/// program's folder lists them (`Program`).
struct FlowLogCommand: ParsableCommand {
    /// The root with every subcommand, or, once `offerOnly(_:)` chose one, with that one alone.
    static var configuration: CommandConfiguration { chosen ?? everything }

    /// Where the arguments name a subcommand, parsing needs only that one: ArgumentParser builds a
    /// tree of every subcommand the root offers, and every typed command's help text with it, on
    /// each start, which was most of the CPU of a short command like `state --at`. Help, completion
    /// scripts and anything that names no subcommand still get the whole tree.
    static func offerOnly(_ arguments: [String]) {
        guard let first = arguments.first, !first.hasPrefix("-") else { return }
        let named = fixedSubcommands.first { $0.configuration.commandName == first } ?? TypedCommandCatalog.groupCommand(named: first)
        guard let named, !arguments.contains("--generate-completion-script") else { return }
        var only = everything
        only.subcommands = [named]
        chosen = only
    }

    /// Set once, before parsing, on the only thread.
    nonisolated(unsafe) private static var chosen: CommandConfiguration?

    private static let fixedSubcommands = Program.subcommands

    private static let everything = CommandConfiguration(
        commandName: Program.name, abstract: Program.abstract, discussion: Program.discussion, version: FlowLogVersion.description,
        subcommands: TypedCommandCatalog.groupCommands + fixedSubcommands)
}
