import ArgumentParser
import Deciding
import FlowLogStore

/// The typed commands, derived from the command kinds' declarations (`LogDecider.Command.kinds`): one
/// group per `declaration.group`, in the order the declarations come, and in each group one
/// `TypedCommand` per kind, named `declaration.verb`. Configurations are made once per process,
/// each when it is first needed.
enum TypedCommandCatalog {
    /// The groups' subcommands of the program, in declaration order.
    static let groupCommands: [any ParsableCommand.Type] = groups.map { groupCommand(keyedBy: $0.kinds[0].payloadType) }

    /// The group's subcommand of the program, by its name, without making any configuration.
    static func groupCommand(named name: String) -> (any ParsableCommand.Type)? {
        groups.first { $0.name == name }.map { groupCommand(keyedBy: $0.kinds[0].payloadType) }
    }

    /// Made when ArgumentParser first asks, kind by kind: a command of one group never makes the
    /// help texts of the others.
    static func configuration<Payload: CommandPayload>(of payload: Payload.Type) -> CommandConfiguration {
        if let made = kindConfigurations[ObjectIdentifier(payload)] { return made }
        let made = configuration(of: LogDecider.Command.kinds.info(ofPayload: payload))
        kindConfigurations[ObjectIdentifier(payload)] = made
        return made
    }

    static func groupConfiguration<Payload: CommandPayload>(of firstKind: Payload.Type) -> CommandConfiguration {
        groupConfigurations[firstKind.declaration.group.description]!
    }

    private struct Group {
        let name: String
        var kinds: [CommandKindEntry<LogDecider.Command>]
    }

    private static let groups: [Group] = LogDecider.Command.kinds.all.reduce(into: []) { groups, info in
        let name = info.declaration.group.description
        if let index = groups.firstIndex(where: { $0.name == name }) {
            groups[index].kinds.append(info)
        } else {
            groups.append(Group(name: name, kinds: [info]))
        }
    }

    private static let groupConfigurations: [String: CommandConfiguration] = Dictionary(
        uniqueKeysWithValues: groups.map { group in
            let abstract = Program.groupAbstracts[group.name] ?? "The \(group.name) commands: \(group.kinds.map(\.typeName).joined(separator: ", "))."
            return (
                group.name,
                CommandConfiguration(commandName: group.name, abstract: abstract, subcommands: group.kinds.map { command(for: $0.payloadType) })
            )
        })

    /// Parsing runs on one thread, before anything else starts.
    nonisolated(unsafe) private static var kindConfigurations: [ObjectIdentifier: CommandConfiguration] = [:]

    private static func configuration(of info: CommandKindEntry<LogDecider.Command>) -> CommandConfiguration {
        let declaration = info.declaration
        let options = info.fields.map(FieldOption.init)
        let usage =
            ([Program.name, declaration.group.description, declaration.verb.description] + options.map(\.usage) + [
                EnvelopeOptions.usage, LogOptions.usage,
            ])
            .joined(separator: " ")
        return CommandConfiguration(
            commandName: declaration.verb.description,
            abstract: abstract(of: info),
            usage: usage,
            discussion: fieldHelp(options))
    }

    /// The kind's summary with its type name: "Add a quantity of a product (cart.addProduct)."
    private static func abstract(of info: CommandKindEntry<LogDecider.Command>) -> String {
        let summary = info.declaration.summary.description
        let sentence = summary.hasSuffix(".") ? String(summary.dropLast()) : summary
        return "\(sentence) (\(info.typeName))."
    }

    /// The field options as the help lists them, in a section like ArgumentParser's own.
    private static func fieldHelp(_ options: [FieldOption]) -> String {
        guard !options.isEmpty else { return "" }
        let width = options.map(\.synopsis.count).max()! + 2
        return (["FIELD OPTIONS:"] + options.map { "  " + TextPadding.pad($0.synopsis, width) + $0.help }).joined(separator: "\n")
    }

    /// Opens the existential: the typed command of a kind, from its payload's type.
    private static func command(for payload: any CommandPayload.Type) -> any ParsableCommand.Type {
        func make<Payload: CommandPayload>(_: Payload.Type) -> any ParsableCommand.Type { TypedCommand<Payload>.self }
        return make(payload)
    }

    private static func groupCommand(keyedBy firstKind: any CommandPayload.Type) -> any ParsableCommand.Type {
        func make<Payload: CommandPayload>(_: Payload.Type) -> any ParsableCommand.Type { TypedCommandGroup<Payload>.self }
        return make(firstKind)
    }
}
