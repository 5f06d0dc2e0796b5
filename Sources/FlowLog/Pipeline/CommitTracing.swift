import Tracing

/// The spans of the log's one writer (`GroupCommitWriter`): one per group commit (its commands,
/// events and submissions) and one per command of a submission that came with a trace context (the
/// server's requests): the command's kind, stream, outcome and answer code, from when it was queued
/// to when it was answered. A commit serves many requests, so its parent is the program's own span
/// (`send`'s) or the first traced submission's, and it links to the others.
///
/// `send`'s commands get no span each (a million spans would bury the trace and cost more than the
/// commands; their commits say how many there were), except a line whose `meta.traceparent` names
/// its producer's trace: its span joins that trace.
struct CommitTracing {
    let tracer: any Tracer
    /// The parent of every commit span (`send`'s root span), or nil to take the first traced submission's.
    let parent: ServiceContext?

    /// The most submissions a commit span links to: a commit of thousands of requests is one span,
    /// not a list of thousands of links.
    static let linksPerCommit = 64

    /// The most commands of one request that get a span each: a batch of 100,000 lines would
    /// otherwise make as many spans on the log's one writer thread, and fill the exporter's queue
    /// (2,048) with them. The commit counts the rest.
    static let commandSpansPerSubmission = 100

    /// A traced submission's part in a commit: its context, when it was queued, and its commands.
    struct Traced {
        let context: ServiceContext
        let queued: DefaultTracerClock.Instant
        let envelopes: [CommandEnvelope]
        /// Where its commands' outcomes start among the commit's.
        let offset: Int
    }

    func record(
        commit traced: [Traced], commands: Int, submissions: Int, bytes: Int, outcomes: [CommandOutcome]?, started: DefaultTracerClock.Instant,
        ended: DefaultTracerClock.Instant
    ) {
        let parent = parent ?? traced.first?.context ?? .topLevel
        let span = tracer.startSpan("flowlog.commit", context: parent, ofKind: .internal, at: started)
        if span.isRecording {
            span.attributes["flowlog.commit.commands"] = commands
            span.attributes["flowlog.commit.submissions"] = submissions
            // The records' bytes as the backend encoded them (the database's own pages and indexes aside).
            if bytes > 0 { span.attributes["flowlog.commit.bytes"] = bytes }
            if let outcomes {
                span.attributes["flowlog.commit.events"] = outcomes.reduce(0) { total, outcome in
                    if case .accepted(let acceptance) = outcome { total + acceptance.events.count } else { total }
                }
            } else {
                span.setStatus(SpanStatus(code: .error, message: "the commit failed; its commands were answered with the error"))
            }
            for submission in traced.dropFirst(self.parent == nil ? 1 : 0).prefix(Self.linksPerCommit) {
                span.addLink(SpanLink(context: submission.context, attributes: [:]))
            }
        }
        var omitted = 0
        for submission in traced {
            for (index, envelope) in submission.envelopes.prefix(Self.commandSpansPerSubmission).enumerated() {
                recordCommand(envelope, outcome: outcomes?[safe: submission.offset + index], in: submission, commit: span.context, ended: ended)
            }
            omitted += max(0, submission.envelopes.count - Self.commandSpansPerSubmission)
        }
        if omitted > 0, span.isRecording { span.attributes["flowlog.commit.command_spans_omitted"] = omitted }
        span.end(at: ended)
    }

    private func recordCommand(
        _ envelope: CommandEnvelope, outcome: CommandOutcome?, in submission: Traced, commit: ServiceContext, ended: DefaultTracerClock.Instant
    ) {
        let span = tracer.startSpan("flowlog.command", context: submission.context, ofKind: .internal, at: submission.queued)
        defer { span.end(at: ended) }
        guard span.isRecording else { return }
        span.attributes["flowlog.command.kind"] = envelope.command.typeName
        span.attributes["flowlog.stream"] = envelope.stream
        switch outcome {
        case .accepted(let acceptance):
            span.attributes["flowlog.command.outcome"] = acceptance.duplicate ? "duplicate" : "accepted"
            span.attributes["flowlog.command.events"] = acceptance.events.count
        case .rejected(_, let rejection):
            span.attributes["flowlog.command.outcome"] = "rejected"
            span.attributes["flowlog.command.answer_code"] = rejection.code.rawValue
        case nil:
            span.attributes["flowlog.command.outcome"] = "failed"
            span.setStatus(SpanStatus(code: .error, message: "the commit that carried the command failed"))
        }
        span.addLink(SpanLink(context: commit, attributes: [:]))
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
