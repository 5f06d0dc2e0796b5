import FlowDomain
import FlowLog

/// Sends one typed command through the pipeline and reports the answer.
enum Issue {
    static func run(_ command: AppCommand, _ envelope: EnvelopeOptions, _ global: GlobalOptions) throws {
        try reportingFailures {
            let log = try Composition.openLog(global, access: .readWriteCreating)
            let processor = Composition.processor(for: log)
            let outcome = try processor.handle(CommandEnvelope(
                stream: envelope.stream, commandId: envelope.id, expectedVersion: envelope.expectedVersion,
                correlationId: envelope.correlationId, command: command))
            switch envelope.format {
            case .json: Output.line(FlowJSON.answer(outcome))
            case .text: if case .accepted(let acceptance) = outcome { Output.line(TextRendering.acceptance(acceptance, command: command)) }
            }
            if case .rejected(_, let rejection) = outcome {
                throw CLIFailure("\(command.typeName) was rejected (\(rejection.code.rawValue)): \(rejection.message)", exitCode: CLIFailure.rejected)
            }
        }
    }
}

/// Results on standard output.
enum Output {
    static func line(_ text: String) {
        print(text)
    }
}
