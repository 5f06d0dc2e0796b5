import Dispatch
import FlowLogBasics
import FlowLogStore
import Synchronization

#if Network
    import FlowLogServer
#endif

/// A following runner's `/metrics` (`projections run --follow --metrics-listen`): listening from
/// before the first catch-up, and read again from the log between two catch-ups, on the runner's
/// thread, which owns the log.
final class RunnerFigures {
    #if Network
        private let metrics = RunnerMetrics()
        private let trackerFolder: String
    #endif

    /// Listens on `address` and says where on `output`; throws when it cannot listen there.
    init(log: any LogStore, listening address: ListenAddress, trackerFolder: String, output: OutputWriter) throws {
        #if Network
            self.trackerFolder = trackerFolder
            update(log)
            let started = DispatchSemaphore(value: 0)
            let outcome = Mutex<Result<String, CLIFailure>?>(nil)
            let metrics = metrics
            Task.detached {
                do {
                    try await metrics.listen(host: address.host, port: address.port) { listening in
                        outcome.withLock { $0 = .success(listening) }
                        started.signal()
                    }
                } catch {
                    outcome.withLock {
                        $0 = .failure(
                            CLIFailure(
                                "--metrics-listen could not listen on \(address): \(error). Choose another address or port; nothing was run.",
                                .ioError))
                    }
                    started.signal()
                }
            }
            started.wait()
            let listening = try outcome.withLock { $0 }!.get()
            output.line("flowlog projections: metrics at \(listening)/metrics")
            output.flush()
        #else
            throw CLIFailure("--metrics-listen needs the whole flowlog (scripts/build).", .usage)
        #endif
    }

    /// Reads the head, the projectors' lags and the trackers' deliveries again.
    func update(_ log: any LogStore) {
        #if Network
            try? metrics.update(
                log: log, projectors: Composition.projectorNames, deliveries: Composition.trackerDeliveries(in: trackerFolder),
                spansDropped: Observability.droppedSpans)
        #endif
    }
}
