import FlowLog

/// What `replay --verify` found: each stream that disagrees with the recorded states, and a verdict.
enum VerificationRendering {
    static func disagreement(_ disagreement: Disagreement, format: OutputFormat, to output: OutputWriter) {
        switch format {
        case .json:
            output.json { json in
                json.beginObject()
                json.key("stream"); json.string(disagreement.stream)
                json.key("position"); json.int(disagreement.position)
                json.key("version"); json.int(disagreement.version)
                json.key("type"); json.string(disagreement.eventType)
                json.key("reason"); json.string(disagreement.reason)
                json.key("replayed"); FlowJSON.writeState(disagreement.replayed, stream: disagreement.stream, version: disagreement.version, into: &json)
                if let recorded = disagreement.recorded { json.key("recorded"); json.value(recorded) }
                json.endObject()
            }
        case .text:
            output.line("stream \(disagreement.stream) first disagrees at position \(disagreement.position) (version \(disagreement.version), \(disagreement.eventType)): \(disagreement.reason)")
        }
    }

    static func verdict(_ report: ReplayVerifier.Report, disagreements: Int, format: OutputFormat, to output: OutputWriter) {
        switch format {
        case .json:
            output.json { json in
                json.beginObject()
                json.key("verified"); json.bool(disagreements == 0)
                json.key("streams"); json.int(report.streams)
                json.key("events"); json.int(report.events)
                json.key("comparisons"); json.int(report.comparisons)
                json.key("disagreements"); json.int(disagreements)
                json.endObject()
            }
        case .text:
            output.line(disagreements == 0
                ? "verified: \(report.streams) stream\(report.streams == 1 ? "" : "s"), \(report.events) events, \(report.comparisons) recorded states compared, all agree"
                : "\(disagreements) stream\(disagreements == 1 ? " disagrees" : "s disagree") with the recorded states (\(report.comparisons) compared)")
        }
    }
}
