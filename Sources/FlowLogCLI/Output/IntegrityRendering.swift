import FlowLogStore

/// What `flowlog verify` found: every problem with its position and stream, and a verdict.
enum IntegrityRendering {
    static func write(_ report: IntegrityReport, location: String, format: OutputFormat, to output: OutputWriter) {
        switch format {
        case .json:
            output.json { json in
                json.object { json in
                    json.field("intact", report.isIntact)
                    json.field("events", report.events)
                    json.field("forgotten", report.forgotten)
                    json.field("streams", report.streams)
                    json.key("problems")
                    json.array(report.problems) { json, problem in
                        json.object { json in
                            json.field("position", problem.position)
                            json.field("stream", problem.stream)
                            json.field("detail", problem.detail)
                            if let page = problem.page {
                                json.field("page", page)
                                json.field("database", problem.database)
                            }
                        }
                    }
                    json.field("unlistedProblems", report.unlistedProblems)
                    json.key("newerThanKnown")
                    json.array(report.newer) { json, problem in
                        json.object { json in
                            json.field("position", problem.position)
                            json.field("stream", problem.stream)
                            json.field("detail", problem.detail)
                        }
                    }
                    json.field("unlistedNewerThanKnown", report.unlistedNewer)
                }
            }
        case .text:
            for problem in report.problems { output.line("damaged: \(problem)") }
            if report.unlistedProblems > 0 { output.line("… and \(report.unlistedProblems) more problems") }
            for problem in report.newer { output.line("newer: \(problem)") }
            if report.unlistedNewer > 0 { output.line("… and \(report.unlistedNewer) more events of newer kind versions") }
            if report.isIntact, !report.newer.isEmpty {
                let count = report.newer.count + report.unlistedNewer
                output.line(
                    "\(count) event\(count == 1 ? "" : "s") of \(location) \(count == 1 ? "is" : "are") of kind versions newer than this FlowLog knows; their checksums hold, so nothing is damaged: upgrade FlowLog to read them"
                )
                return
            }
            output.line(
                report.isIntact
                    ? "intact: \(report.events) events\(report.forgotten > 0 ? " (\(report.forgotten) forgotten)" : "") in \(report.streams) streams; the hash chain, positions, versions and indexes all check out"
                    : "\(report.problems.count + report.unlistedProblems) problems in \(location); keep a copy of the folder, and restore the events from a backup or an export"
            )
        }
    }
}
