public import Deciding
public import FlowLogBasics
public import FlowLogStore

/// A command with its envelope: where it goes and how it may be retried (SPEC §2).
public struct CommandEnvelope: Equatable, Sendable {
    public var stream: String
    /// The idempotency key: a retried command with the same id is answered as a duplicate.
    public var commandId: String?
    /// The stream version the caller expects; 0 means "the stream must not exist yet".
    public var expectedVersion: Int?
    /// Ties the events to a wider conversation; copied onto every event the command causes.
    public var correlationId: String?
    public var command: LogDecider.Command
    /// The W3C trace context its producer gave it (a `send` line's `meta.traceparent` and
    /// `meta.tracestate`, `POST /commands`' headers, a typed command's `--traceparent`): kept with
    /// every event it causes (log schema 5), and the parent of the command's span when spans are
    /// exported (docs/operations.md).
    public var traceContext: TraceContext?

    public init(
        stream: String = "default", commandId: String? = nil, expectedVersion: Int? = nil,
        correlationId: String? = nil, command: LogDecider.Command, traceContext: TraceContext? = nil
    ) {
        (self.stream, self.commandId, self.expectedVersion, self.correlationId, self.command) = (
            stream, commandId, expectedVersion, correlationId, command
        )
        self.traceContext = traceContext
    }
}

/// The answer to one command.
public enum CommandOutcome: Equatable, Sendable {
    case accepted(Acceptance)
    case rejected(stream: String, Rejection)

    public var stream: String {
        switch self {
        case .accepted(let acceptance): acceptance.stream
        case .rejected(let stream, _): stream
        }
    }
}

public struct Acceptance: Equatable, Sendable {
    public var stream: String
    public var receipt: CommandReceipt
    /// True when the command id had been accepted before and nothing new was written.
    public var duplicate: Bool
    /// The events this command appended (empty for a duplicate).
    public var events: [LogDecider.Event]
}
