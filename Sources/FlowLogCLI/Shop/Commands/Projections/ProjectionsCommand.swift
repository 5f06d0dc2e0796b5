import ArgumentParser

struct ProjectionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "projections",
        abstract: "The side effects driven by the log: storage read models and analytics trackers.",
        subcommands: [
            ProjectionsStatusCommand.self, ProjectionsRunCommand.self, ProjectionsRebuildCommand.self, ProjectionsRepartitionCommand.self,
            ReplayDeadLettersCommand.self,
        ])
}
