import FlowLogBasics
import FlowLogStore
import Foundation

/// Walks a log's positions on a thread of its own and hands the decoded events over in batches,
/// while the calling thread does what it does with each (an export formats and writes it).
/// Reading an event (its checksum, the hash chain, decoding) and formatting it each take about half
/// of an export's time, so on two cores the two halves overlap instead of taking turns.
///
/// The walk keeps its read transaction on its thread for the whole run, so what the caller sees is
/// still one consistent snapshot of the log. At most `capacity` batches wait in memory.
enum WalkAhead {
    static let batchSize = 1_024
    static let capacity = 4

    /// Calls `body` with every event from `from` through `through`, in position order, until it
    /// returns `false`. Errors of the walk (a damaged record) are thrown here, after the events
    /// before them; when `body` stops or throws, the walk stops too. Returns only once the walk's
    /// thread is done with the log.
    /// With `includingForgotten`, forgotten records come too, where the log has any (`StreamForgetting`).
    static func forEachEvent(
        in log: any EventLog, from: Int, through: Int?, includingForgotten: Bool = false,
        _ body: (RecordedEvent) throws -> Bool
    ) throws {
        let batches = Handoff<[RecordedEvent]>(capacity: capacity)
        let finished = DispatchSemaphore(value: 0)
        // The log, handed to the walking thread: it is used there alone until the walk returns.
        nonisolated(unsafe) let source = log
        Thread {
            defer { finished.signal() }
            var batch: [RecordedEvent] = []
            batch.reserveCapacity(batchSize)
            do {
                let gather: (RecordedEvent) throws -> Bool = { record in
                    batch.append(record)
                    guard batch.count == batchSize else { return true }
                    guard batches.put(batch) else { return false }
                    batch.removeAll(keepingCapacity: true)
                    return true
                }
                if includingForgotten, let forgetting = source.capabilities.forgetting {
                    try forgetting.forEachRecord(from: from, through: through, gather)
                } else {
                    try source.forEachEvent(from: from, through: through, gather)
                }
                if !batch.isEmpty { _ = batches.put(batch) }
                batches.close(error: nil)
            } catch {
                // The events before a damaged record are the caller's, as in a walk on one thread.
                if !batch.isEmpty { _ = batches.put(batch) }
                batches.close(error: error)
            }
        }.start()
        defer {
            batches.cancel()
            finished.wait()
        }
        while let batch = try batches.take() {
            for record in batch {
                guard try body(record) else { return }
            }
        }
    }
}
