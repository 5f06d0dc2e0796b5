import ArgumentParser
import FlowLog

struct OrdersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orders", abstract: "List the orders of all streams (or one), from the storage read model.")

    @Option(help: "Only this stream's orders.") var stream: String?
    @OptionGroup var format: FormatOptions
    @OptionGroup var tracker: TrackerOptions
    @OptionGroup var logOptions: LogOptions

    func run() throws {
        try CommandExecution.run { output in
            let log = try Composition.openLog(logOptions, access: .readWrite)
            let storage = StorageProjector(store: log)
            do {
                let lock = try log.leaseProjector(storage.name)
                try ProjectionRunner(log: log).catchUp(storage)
                withExtendedLifetime(lock) {}
            } catch FlowLogError.busy(let busy) {
                // Its runner keeps the read model current; what it has projected so far is shown.
                Diagnostics.write("\(busy.pid.map { "process \($0)" } ?? "another process") is running projector storage; these orders are as of position \(try storage.checkpoint()) of \(try log.lastPosition()).")
            }
            let orders = try storage.orders(stream: stream)
            for (position, stream, order) in orders {
                ProjectionRendering.order(order, position: position, stream: stream, format: format.format, to: output)
            }
            if !format.isJSON, orders.isEmpty { output.line("(no orders)") }
        }
    }
}
