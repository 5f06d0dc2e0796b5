import ArgumentParser
import FlowLogProjections

struct OrdersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orders", abstract: "List the orders of all streams (or one): the storage read model, and the log past its checkpoint.")

    @Option(help: "Only this stream's orders.") var stream: String?
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func run() throws {
        try CommandExecution.run { output in
            // A reading command: the read model as far as it got, and the orders of the events
            // after its checkpoint from the log; the projector is left to its runner.
            let log = try Composition.openLog(logOptions, access: .readOnly)
            if let stream { try ReadingScope(log: log, options: logOptions).check(stream: stream) }
            let orders = try StorageProjector(store: log).orders(stream: stream, through: log)
            for (position, stream, order) in orders {
                ProjectionRendering.order(order, position: position, stream: stream, format: format.format, to: output)
            }
            if !format.isJSON, orders.isEmpty { output.line("(no orders)") }
        }
    }
}
