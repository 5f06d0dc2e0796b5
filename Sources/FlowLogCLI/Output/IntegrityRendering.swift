import FlowLog

/// What `flowlog verify` found: every problem with its position and stream, and a verdict.
enum IntegrityRendering {
    static func write(_ report: IntegrityReport, location: String, format: OutputFormat, to output: OutputWriter) {
        switch format {
        case .json:
            output.json { json in
                json.object { json in
                    json.field("intact", report.isIntact); json.field("events", report.events); json.field("streams", report.streams)
                    json.key("problems")
                    json.array(report.problems) { json, problem in
                        json.object { json in
                            json.field("position", problem.position); json.field("stream", problem.stream); json.field("detail", problem.detail)
                        }
                    }
                    json.field("unlistedProblems", report.unlistedProblems)
                }
            }
        case .text:
            for problem in report.problems { output.line("damaged: \(problem)") }
            if report.unlistedProblems > 0 { output.line("… and \(report.unlistedProblems) more problems") }
            output.line(report.isIntact
                ? "intact: \(report.events) events in \(report.streams) streams; the hash chain, positions, versions and indexes all check out"
                : "\(report.problems.count + report.unlistedProblems) problems in \(location); keep a copy of the folder, and restore the events from a backup or an export")
        }
    }
}
