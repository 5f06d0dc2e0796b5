import FlowLog

/// What `flowlog verify` found: every problem with its position and stream, and a verdict.
enum IntegrityRendering {
    static func write(_ report: IntegrityReport, location: String, format: OutputFormat, to output: OutputWriter) {
        switch format {
        case .json:
            output.json { json in
                json.beginObject()
                json.key("intact"); json.bool(report.isIntact)
                json.key("events"); json.int(report.events)
                json.key("streams"); json.int(report.streams)
                json.key("problems"); json.beginArray()
                for problem in report.problems {
                    json.beginObject()
                    json.key("position"); json.int(problem.position)
                    json.key("stream"); json.string(problem.stream)
                    json.key("detail"); json.string(problem.detail)
                    json.endObject()
                }
                json.endArray()
                json.key("unlistedProblems"); json.int(report.unlistedProblems)
                json.endObject()
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
