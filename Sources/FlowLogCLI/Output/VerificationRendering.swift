import FlowLogHistory
import FlowLogStore

/// What `replay --verify` found: each stream that disagrees with the recorded states, and a verdict.
enum VerificationRendering {
    static func disagreement(_ disagreement: Disagreement, format: OutputFormat, to output: OutputWriter) {
        output.result(
            format,
            text:
                "stream \(disagreement.stream) first disagrees at position \(disagreement.position) (version \(disagreement.version), \(disagreement.eventType)): \(disagreement.reason)"
        ) { json in
            json.field("stream", disagreement.stream)
            json.field("position", disagreement.position)
            json.field("version", disagreement.version)
            json.field("type", disagreement.eventType)
            json.field("reason", disagreement.reason)
            json.key("replayed")
            FlowJSON.writeState(disagreement.replayed, stream: disagreement.stream, version: disagreement.version, into: &json)
            if let recorded = disagreement.recorded {
                json.key("recorded")
                json.value(recorded)
            }
        }
    }

    static func verdict(_ report: ReplayVerifier.Report, disagreements: Int, format: OutputFormat, to output: OutputWriter) {
        let text =
            disagreements == 0
            ? "verified: \(report.streams) stream\(report.streams == 1 ? "" : "s"), \(report.events) events\(report.forgotten > 0 ? " (and \(report.forgotten) forgotten)" : ""), \(report.comparisons) recorded states compared, all agree"
            : "\(disagreements) stream\(disagreements == 1 ? " disagrees" : "s disagree") with the recorded states (\(report.comparisons) compared)"
        output.result(format, text: text) { json in
            json.field("verified", disagreements == 0)
            json.field("streams", report.streams)
            json.field("events", report.events)
            json.field("comparisons", report.comparisons)
            json.field("disagreements", disagreements)
            if report.forgotten > 0 { json.field("forgotten", report.forgotten) }
        }
    }
}
