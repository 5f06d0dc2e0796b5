import ArgumentParser
import Foundation
import Synchronization
import Tracing

#if Network
    import FlowLogTelemetry
#endif

/// Where `flowlog`'s spans go: started from the `OTEL_*` environment before a subcommand runs
/// (docs/operations.md), each subcommand one root span, and the exporter flushed, for a second at
/// most, before the process exits. The embedded build has no exporter: nothing here does anything.
enum Observability {
    #if Network
        private static let telemetry = Mutex<Telemetry?>(nil)
    #endif

    /// Starts exporting if the environment asks for it; throws a sentence when its settings cannot
    /// be honoured (an unknown sampler, gRPC in a build that speaks OTLP/HTTP).
    static func start(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CLIFailure) {
        #if Network
            // The exporter's threads (its HTTP client's event loops, the tasks it runs on) start
            // here and inherit this thread's signal mask: with SIGINT and SIGTERM blocked in them, the
            // signals still reach this thread, where a following command holds them (`Interruption`)
            // and stops cleanly, instead of a thread of the exporter taking them and the process dying.
            let previous = Interruption.blockInThisThread()
            defer { Interruption.restore(previous) }
            do {
                let started = try Telemetry.start(environment: environment, serviceName: Program.name)
                telemetry.withLock { $0 = started }
            } catch {
                throw CLIFailure(error.description, .usage)
            }
        #endif
    }

    /// Spans that could not be exported since the process started (`/metrics`' `flowlog_spans_dropped_total`).
    static var droppedSpans: Int {
        #if Network
            telemetry.withLock { $0 }?.droppedSpans ?? 0
        #else
            0
        #endif
    }

    /// Sends what is queued, waiting a second at most; says on standard error how many spans were lost.
    static func finish() {
        #if Network
            // Once: a failure after the command ran comes here again on its way out.
            guard let started = telemetry.withLock({ $0.take() }) else { return }
            let finished = started.finish(within: .seconds(1))
            let dropped = started.droppedSpans
            if !finished {
                let before = dropped > 0 ? ", and \(dropped) before them" : ""
                Diagnostics.write(
                    "the OTLP endpoint did not take the last spans within a second; they were dropped\(before). The command's own work was not affected."
                )
            } else if dropped > 0 {
                Diagnostics.write(
                    "\(dropped) span(s) could not be exported to the OTLP endpoint (it refused them, or the queue was full); the command's own work was not affected."
                )
            }
        #endif
    }

    /// Runs a parsed subcommand inside its root span, named `flowlog PATH` (`flowlog projections run`),
    /// unless it serves until stopped (`serve`, a following runner): a span that never ends is never
    /// exported, so those trace their requests and batches instead.
    static func run(_ command: inout any ParsableCommand, path: [String], arguments: [String]) throws {
        guard let tracer = InstrumentationSystem.activeTracer, !servesUntilStopped(path, arguments) else {
            try command.run()
            return
        }
        let span = tracer.startSpan(([Program.name] + path).joined(separator: " "), context: ServiceContext.topLevel, ofKind: .internal)
        span.attributes["flowlog.command"] = path.joined(separator: " ")
        defer { span.end() }
        do {
            try ServiceContext.withValue(span.context) { try command.run() }
            span.attributes["process.exit.code"] = 0
        } catch {
            let status = FlowLogCommand.exitCode(for: error).rawValue
            span.attributes["process.exit.code"] = Int(status)
            // 1 is an answer (a rejected command, a disagreement found), not a failure of the program.
            if status > 1 { span.setStatus(SpanStatus(code: .error, message: "exit status \(status)")) }
            throw error
        }
    }

    private static func servesUntilStopped(_ path: [String], _ arguments: [String]) -> Bool {
        path == ["serve"] || (path == ["projections", "run"] && arguments.contains("--follow"))
    }

    /// The names from the root to `leaf` (`["projections", "run"]`).
    static func path(to leaf: any ParsableCommand.Type, under root: any ParsableCommand.Type = FlowLogCommand.self) -> [String]? {
        for child in root.configuration.subcommands {
            let name = child.configuration.commandName ?? "\(child)"
            if child == leaf { return [name] }
            if let below = path(to: leaf, under: child) { return [name] + below }
        }
        return nil
    }
}
