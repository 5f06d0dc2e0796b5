#if Network
    import FlowLog
    import FlowLogBasics
    import FlowLogStore
    import Foundation
    import Tracing

    /// The server's side of the log's one writer (`GroupCommitWriter`, which `send` and the bench use
    /// too): each request's commands are queued, and every request that arrived meanwhile shares one
    /// durable commit; a request is answered only after that commit returns. This adds what only the
    /// server needs: answers for async handlers, a 503 once shutting down, and the commit metrics.
    final class CommandWriter: Sendable {
        private let writer: GroupCommitWriter

        init(
            log: LogHandle, metrics: ServerMetrics, commandsPerCommit: Int = 20_000,
            streamsPerCommit: Int = AppendRules.streamsPerCommit, onCommit: @escaping @Sendable () -> Void
        ) {
            let clock = SystemClock()
            let processor = CommandProcessor(log: log.log, clock: clock, ids: UUIDv7Generator(clock: clock))
            writer = GroupCommitWriter(processor: processor, commandsPerCommit: commandsPerCommit, streamsPerCommit: streamsPerCommit) { commit in
                metrics.recordCommit(duration: commit.duration, commands: commit.commands)
                if let outcomes = commit.outcomes {
                    metrics.recordOutcomes(outcomes)
                    onCommit()
                }
            }
            writer.start(name: "flowlog-writer")
        }

        /// Decides and appends `envelopes` (in one commit, possibly shared with other requests) and
        /// returns their answers once every accepted event is durable. `fieldsChecked`: the envelopes
        /// passed `CommandProcessor.envelopeViolation` already (`SendSession.parse` checks them).
        /// `requestTrace`: the request's `traceparent` and `tracestate` headers, kept with the events of
        /// every command that names no context of its own, unless the request has a span, whose
        /// context (in the same trace) is kept instead.
        func submit(_ envelopes: [CommandEnvelope], fieldsChecked: Bool = false, requestTrace: TraceContext? = nil) async throws
            -> [CommandOutcome]
        {
            if envelopes.isEmpty { return [] }
            var envelopes = envelopes
            let spanTrace = InstrumentationSystem.activeTracer == nil ? nil : ServiceContext.current?.traceContext
            if let trace = spanTrace ?? requestTrace {
                for index in envelopes.indices where envelopes[index].traceContext == nil { envelopes[index].traceContext = trace }
            }
            return try await withCheckedThrowingContinuation { continuation in
                // The request's span (when requests have spans) is the parent of each command's.
                let queued = writer.submit(envelopes, fieldsChecked: fieldsChecked, trace: ServiceContext.current) { result in
                    continuation.resume(with: result.mapError { APIError.from($0) })
                }
                if !queued {
                    continuation.resume(
                        throwing: APIError.unavailable("The server is shutting down and takes no more commands; send them again once it is back."))
                }
            }
        }

        /// Forgets `stream` on the writer's thread between two commits (`GroupCommitWriter.perform`):
        /// never inside a group commit, after every command queued before it is durable and answered,
        /// and with the processor's cached state of the stream dropped. Throws what the processor
        /// throws (`ForgetRefusal`, `CommandProcessor.ForgettingUnsupported`, the log's own errors).
        func forget(_ stream: String, reason: String, key: [UInt8]?) async throws -> ForgottenStream {
            try await onWriter(refusing: "The server is shutting down and forgets nothing more; ask again once it is back.") { processor in
                try processor.forget(streams: [stream], reason: reason, key: key)[0]
            }
        }

        /// Appends a device's recorded events of one stream on the writer's thread between two commits
        /// (`CommandProcessor.ingest`): serialised with commands and forgets, so a forget of the same
        /// stream lands wholly before the ingest (which then finds it gone) or after it.
        func ingest(_ events: [RecordedEvent], stream: String, erased: ErasedStreams) async throws -> CommandProcessor.Ingested {
            try await Self.tracingIngest(streams: 1, events: events.count) {
                try await onWriter(refusing: Self.storesNoMore) { processor in try processor.ingest(events, stream: stream, erased: erased) }
            }
        }

        /// Many streams' recorded events in one commit (`CommandProcessor.ingest(runs:)`), each answered on its own.
        func ingest(runs: [CommandProcessor.IngestRun], erased: ErasedStreams) async throws -> [Result<
            CommandProcessor.Ingested, CommandProcessor.IngestRefusal
        >] {
            try await Self.tracingIngest(streams: runs.count, events: runs.reduce(0) { $0 + $1.events.count }) {
                try await onWriter(refusing: Self.storesNoMore) { processor in try processor.ingest(runs: runs, erased: erased) }
            }
        }

        /// Where each of `streams` stands (`CommandProcessor.ingestTips`; nil: forgotten here), read
        /// between two commits.
        func ingestTips(of streams: [String], erased: ErasedStreams) async throws -> [(version: Int, eventId: EventID?)?] {
            try await onWriter(refusing: Self.asksNoMore) { processor in try processor.ingestTips(of: streams, erased: erased) }
        }

        /// Where `stream` stands for a device (`CommandProcessor.ingestTip`), read between two commits.
        func ingestTip(of stream: String, erased: ErasedStreams) async throws -> (version: Int, eventId: EventID?) {
            try await onWriter(refusing: Self.asksNoMore) { processor in try processor.ingestTip(of: stream, erased: erased) }
        }

        /// A device's events stored (`flowlog.ingest`: how many streams and events), inside the request's span.
        private static func tracingIngest<Value>(streams: Int, events: Int, _ body: () async throws -> Value) async throws -> Value {
            guard InstrumentationSystem.activeTracer != nil else { return try await body() }
            return try await withSpan("flowlog.ingest", ofKind: .internal) { span in
                span.attributes["flowlog.ingest.streams"] = streams
                span.attributes["flowlog.ingest.events"] = events
                return try await body()
            }
        }

        private static let storesNoMore = "The server is shutting down and stores no more events; send them again once it is back."
        private static let asksNoMore = "The server is shutting down; ask again once it is back."

        /// Runs `body` on the writer's thread between two commits (`GroupCommitWriter.perform`); once
        /// the writer is finishing, answers 503 with `refusing`.
        private func onWriter<Value: Sendable>(refusing: String, _ body: @escaping (CommandProcessor) throws -> Value) async throws -> Value {
            try await withCheckedThrowingContinuation { continuation in
                let queued = writer.perform(body) { result in continuation.resume(with: result) }
                if !queued { continuation.resume(throwing: APIError.unavailable(refusing)) }
            }
        }

        /// Takes no new commands, answers those queued, and returns once the writer's thread is done.
        func stop() {
            writer.stop()
        }
    }
#endif
