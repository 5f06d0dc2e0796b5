import ArgumentParser
import FlowLog
#if canImport(Glibc)
import Glibc
#endif

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the whole log: its hash chain, the contiguity of positions and versions, and its indexes.",
        discussion: """
        Every problem is named with its position and stream (a flipped byte, a removed, reordered or \
        altered event, an index that points elsewhere). Exit status 0 when the log is intact, 65 when \
        anything is wrong. Progress goes to stderr when it is a terminal.
        """)

    @Option(help: "text or json.") var format: OutputFormat = .text
    @OptionGroup var global: GlobalOptions

    func run() throws {
        var intact = true
        try reportingFailures {
            let log = try Composition.openLog(global, access: .readOnly)
            let report = try log.checkIntegrity(progress: Progress(label: "verify", total: try log.lastPosition()))
            intact = report.isIntact
            switch format {
            case .json:
                var json = JSONWriter()
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
                Output.line(json.text)
            case .text:
                for problem in report.problems { Output.line("damaged: \(problem)") }
                if report.unlistedProblems > 0 { Output.line("… and \(report.unlistedProblems) more problems") }
                Output.line(report.isIntact
                    ? "intact: \(report.events) events in \(report.streams) streams; the hash chain, positions, versions and indexes all check out"
                    : "\(report.problems.count + report.unlistedProblems) problems in \(log.location); keep a copy of the folder, and restore the events from a backup or an export")
            }
        }
        if !intact { throw ExitCode(CLIFailure.dataError) }
    }
}
