import ArgumentParser
import FlowDomain
import FlowLog
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where the tracker's NDJSON files go: beside the log, unless --tracker-dir says otherwise.
struct TrackerOptions: ParsableArguments {
    @Option(help: "The folder for the analytics calls (one NDJSON file per service; default: LOG-tracker beside the log).")
    var trackerDir: String?

    @Option(help: "Post the Segment calls to this batch endpoint (with retries) instead of a file.")
    var segmentURL: String?

    @Option(help: "Post the snake_case calls to this batch endpoint (with retries) instead of a file.")
    var snakeURL: String?

    func validate() throws {
        for (name, value) in [("--segment-url", segmentURL), ("--snake-url", snakeURL)] {
            if let value, URL(string: value)?.scheme?.hasPrefix("http") != true {
                throw ValidationError("\(name) '\(value)' is not an http(s) URL.")
            }
        }
    }

    func folder(for global: GlobalOptions) -> String {
        if let trackerDir { return trackerDir }
        var path = global.logPath
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path + "-tracker"
    }
}

extension Composition {
    static let projectorNames = ["storage", "tracker.segment", "tracker.snake"]

    /// The three projectors, wired to the log and the tracker's files.
    static func projectors(_ log: any LogStore, tracker: TrackerOptions, global: GlobalOptions) throws -> [any Projector] {
        let folder = tracker.folder(for: global)
        // An NDJSON sink appends, and cuts a torn last line: inside a log (or through a link into
        // one) that would write into its database files, so such a folder or file is refused.
        let files = [folder] + [(SegmentService().name, tracker.segmentURL), (SnakeCaseService().name, tracker.snakeURL)]
            .filter { $0.1 == nil }.map { "\(folder)/\($0.0).ndjson" }
        for file in files {
            if let environment = OutputPath.enclosingLMDBEnvironment(of: file) {
                throw CLIFailure("The tracker's \(file == folder ? "folder" : "file") \(file) is inside \(environment), an LMDB environment (a FlowLog log, or another program's database); analytics calls are never written there. Choose another folder with --tracker-dir; nothing was written.", exitCode: CLIFailure.usage)
            }
        }
        if mkdir(folder, 0o755) != 0 && errno != EEXIST {
            throw CLIFailure("Cannot create the tracker folder \(folder): \(String(cString: strerror(errno))). Choose another with --tracker-dir.", exitCode: CLIFailure.cannotCreate)
        }
        let services: [(any AnalyticsService, String?)] = [(SegmentService(), tracker.segmentURL), (SnakeCaseService(), tracker.snakeURL)]
        return [StorageProjector(store: log) as any Projector] + services.map { service, url in
            let sink: any TrackerSink = url.flatMap(URL.init(string:)).map { HTTPBatchSink(url: $0) } ?? NDJSONFileSink(path: "\(folder)/\(service.name).ndjson")
            return TrackerProjector(service: service, sink: sink, log: log) as any Projector
        }
    }
}

struct ProjectionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "projections",
        abstract: "The side effects driven by the log: storage read models and analytics trackers.",
        subcommands: [Status.self, Run.self, Rebuild.self])

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "status", abstract: "Show each projector's checkpoint, lag and failure, if any.")
        @Option(help: "text or json.") var format: OutputFormat = .text
        @OptionGroup var global: GlobalOptions

        func run() throws {
            try reportingFailures {
                let log = try Composition.openLog(global, access: .readOnly)
                for status in try log.projectionStatus(of: Composition.projectorNames) {
                    if format == .json {
                        Output.line("{\"name\":\(JSONWriter.quoted(status.name)),\"checkpoint\":\(status.checkpoint),\"lag\":\(status.lag),\"failure\":\(status.failure.map(JSONWriter.quoted) ?? "null")}")
                    } else {
                        let state = status.failure.map { "stopped: \($0)" } ?? (status.lag == 0 ? "current" : "behind")
                        Output.line("\(TextRendering.pad(status.name, 16)) checkpoint \(status.checkpoint), lag \(status.lag): \(state)")
                    }
                }
            }
        }
    }

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "run", abstract: "Catch every projector up with the log (and keep following it with --follow).")
        @Flag(help: "Keep following new appends until interrupted.") var follow = false
        @OptionGroup var tracker: TrackerOptions
        @OptionGroup var global: GlobalOptions

        func run() throws {
            try reportingFailures {
                let log = try Composition.openLog(global, access: .readWrite)
                let runner = ProjectionRunner(log: log)
                let projectors = try Composition.projectors(log, tracker: tracker, global: global)
                // Held until this process ends: one runner per projector.
                let locks = try projectors.map { try log.leaseProjector($0.name) }
                defer { withExtendedLifetime(locks) {} }
                if follow {
                    try runner.follow(projectors) { false }
                }
                for projector in projectors {
                    let handled = try runner.catchUp(projector)
                    Output.line("\(projector.name): projected \(handled) events, checkpoint \(try projector.checkpoint())")
                }
            }
        }
    }

    struct Rebuild: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rebuild", abstract: "Reset one projector and replay it from position 1.")
        @Argument(help: "storage, tracker.segment or tracker.snake.") var name: String
        @Flag(help: "For a tracker: send again the calls its collector already acknowledged.") var resend = false
        @OptionGroup var tracker: TrackerOptions
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard Composition.projectorNames.contains(name) else {
                throw ValidationError("There is no projector '\(name)'; the projectors are \(Composition.projectorNames.joined(separator: ", ")).")
            }
            if resend, !name.hasPrefix("tracker.") { throw ValidationError("--resend goes with a tracker (tracker.segment or tracker.snake).") }
        }

        func run() throws {
            try reportingFailures {
                let log = try Composition.openLog(global, access: .readWrite)
                guard let projector = try Composition.projectors(log, tracker: tracker, global: global).first(where: { $0.name == name }) else { return }
                let lock = try log.leaseProjector(name)
                defer { withExtendedLifetime(lock) {} }
                if let tracker = projector as? TrackerProjector {
                    try tracker.reset(resending: resend)
                } else {
                    try projector.reset()
                }
                let handled = try ProjectionRunner(log: log).catchUp(projector)
                Output.line("\(name): rebuilt from \(handled) events")
                let acknowledged = try log.acknowledgedPosition(of: name)
                if projector is TrackerProjector, acknowledged > 0 {
                    Diagnostics.print("\(name): the calls of positions 1 through \(acknowledged), which the collector had acknowledged, were not sent again; give --resend to send them again.")
                }
            }
        }
    }
}

struct OrdersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orders", abstract: "List the orders of all streams (or one), from the storage read model.")

    @Option(help: "Only this stream's orders.") var stream: String?
    @Option(help: "text or json.") var format: OutputFormat = .text
    @OptionGroup var tracker: TrackerOptions
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reportingFailures {
            let log = try Composition.openLog(global, access: .readWrite)
            let storage = StorageProjector(store: log)
            do {
                let lock = try log.leaseProjector(storage.name)
                try ProjectionRunner(log: log).catchUp(storage)
                withExtendedLifetime(lock) {}
            } catch FlowLogError.busy(let busy) {
                // Its runner keeps the read model current; what it has projected so far is shown.
                Diagnostics.print("\(busy.pid.map { "process \($0)" } ?? "another process") is running projector storage; these orders are as of position \(try storage.checkpoint()) of \(try log.lastPosition()).")
            }
            let orders = try storage.orders(stream: stream)
            for (position, stream, order) in orders {
                if format == .json {
                    Output.line("{\"position\":\(position),\"stream\":\(JSONWriter.quoted(stream)),\"orderId\":\(JSONWriter.quoted(order.orderId)),\"total\":\(order.total),\"itemCount\":\(order.itemCount)}")
                } else {
                    Output.line("#\(position) \(stream) \(order.orderId): \(Money.format(cents: order.total)) for \(order.itemCount) item\(order.itemCount == 1 ? "" : "s")")
                }
            }
            if format == .text, orders.isEmpty { Output.line("(no orders)") }
        }
    }
}

struct ViewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Draw what the app's screen and cart show for a stream: plain strings and flags computed from its state.")

    @Option(help: "The stream.") var stream = "default"
    @Option(help: "As it was after this global position.") var at: Int?
    @Option(help: "text or json.") var format: OutputFormat = .text
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reportingFailures {
            let log = try Composition.openLog(global, access: .readOnly)
            let (state, version) = try log.state(ofStream: stream, throughPosition: at)
            let cart = ViewProjector.cart(state)
            let screen = ViewProjector.screen(state.navigation)
            if format == .json {
                var json = JSONWriter()
                ViewProjector.writeJSON(cart: cart, screen: screen, stream: stream, version: version, into: &json)
                Output.line(json.text)
            } else {
                Output.line(ViewProjector.render(cart: cart, screen: screen))
            }
        }
    }
}
