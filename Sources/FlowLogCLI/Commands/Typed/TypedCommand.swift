import ArgumentParser
import Deciding
import FlowLog
import FlowLogStore

/// The subcommand of one command kind (`flowlog cart add`), for the kind whose payload is
/// `Payload`. Its name, abstract, help and usage come from the kind's declaration
/// (`TypedCommandCatalog`); its field options are read from the arguments ArgumentParser leaves
/// over, against the payload's declared fields (`FieldOptionReader`). A kind the domain declares
/// is on the command line without a line here.
struct TypedCommand<Payload: CommandPayload>: ParsableCommand {
    static var configuration: CommandConfiguration { TypedCommandCatalog.configuration(of: Payload.self) }

    /// The field options, as given; the help lists them from the declaration.
    @Argument(parsing: .allUnrecognized, help: .hidden) var fieldOptions: [String] = []
    @OptionGroup var envelope: EnvelopeOptions
    @OptionGroup var logOptions: LogOptions

    func validate() throws {
        _ = try FieldOptionReader.payload(Payload.self, from: fieldOptions)
    }

    func run() throws {
        let command = LogDecider.Command.kinds.command(try FieldOptionReader.payload(Payload.self, from: fieldOptions))
        try CommandExecution.run { output in
            // Created only if the command is accepted.
            let log = try LogCreatedOnFirstAppend(logOptions)
            let outcome = try Composition.processor(for: log).handle(
                CommandEnvelope(
                    stream: envelope.stream, commandId: envelope.id, expectedVersion: envelope.expectedVersion,
                    correlationId: envelope.correlationId, command: command, traceContext: try envelope.traceContext()))
            switch envelope.format.format {
            case .json: output.json { FlowJSON.writeAnswer(outcome, into: &$0) }
            case .text: if case .accepted(let acceptance) = outcome { output.lines(EventText.acceptance(acceptance, command: command)) }
            }
            if case .rejected(_, let rejection) = outcome {
                throw CLIFailure("\(command.typeName) was rejected (\(rejection.code.rawValue)): \(rejection.message)", .rejected)
            }
        }
    }
}

/// The subcommand of one group of command kinds (`flowlog cart`). A group's type is keyed by the
/// payload of its first kind: one distinct type per group, none of them declared by hand.
struct TypedCommandGroup<FirstKind: CommandPayload>: ParsableCommand {
    static var configuration: CommandConfiguration { TypedCommandCatalog.groupConfiguration(of: FirstKind.self) }
}
