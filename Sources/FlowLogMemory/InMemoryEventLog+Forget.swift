public import FlowLogBasics
public import FlowLogStore

/// `forget` in memory, by the rules every backend follows (`ForgetRules`), so that the forget
/// contract runs against memory as against LMDB and PostgreSQL.
///
/// A forgotten record keeps its position, version, event id, kind, actor and timestamp, and loses
/// its stream, ids and payload (the event becomes the blank event of its kind), as a forgotten
/// record reads back from LMDB or PostgreSQL. Memory keeps no chain hashes, so there is no check
/// to reseed.
extension InMemoryEventLog: StreamForgetting {
    public func forget(streams: [String], lastEventBefore cutoff: Timestamp?, audit: (ForgottenStream) -> NewEvent?) throws -> [ForgottenStream] {
        // All or nothing: what a forget changes is put back if any step throws.
        let saved = (events, fingerprints, receipts, snapshots, readModels, readModels.flags.values)
        do {
            var transaction = ForgetSteps(log: self)
            return try ForgetRules.forget(streams: streams, lastEventBefore: cutoff, audit: audit, in: &transaction)
        } catch {
            (events, fingerprints, receipts, snapshots, readModels) = (saved.0, saved.1, saved.2, saved.3, saved.4)
            readModels.flags.values = saved.5
            throw error
        }
    }

    public func forEachRecord(from: Int, through: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        let records = events.records
        let upper = min(through ?? records.count, records.count)
        guard max(from, 1) <= upper else { return }
        for record in records[max(from, 1) - 1..<upper] {
            guard try body(record) else { return }
        }
    }

    private struct ForgetSteps: ForgetTransaction {
        let log: InMemoryEventLog
        var location: String { log.location }

        func logSchema() -> Int { log.storedSettings.logSchema }

        func lastEventTime(of stream: String) -> Timestamp? {
            log.events.indices(of: stream).last.map { log.events.records[$0].timestamp }
        }

        func forgetRecords(of stream: String) -> (positions: [Int], correlationIds: [String]) {
            let indices = log.events.indices(of: stream)
            var correlationIds: [String] = []
            for index in indices {
                let record = log.events.records[index]
                if let id = record.correlationId, !correlationIds.contains(id) { correlationIds.append(id) }
                log.events.replace(at: index, with: record.forgotten)
                // A state's fingerprint would confirm a guess of the state.
                log.fingerprints[index] = nil
            }
            return (indices.map { log.events.records[$0].position }, correlationIds)
        }

        func forgetDerived(stream: String, positions: [Int]) {
            log.events.removeStream(stream)
            log.receipts[stream] = nil
            log.snapshots[stream] = nil
            log.readModels.states[stream] = nil
            log.readModels.flags.values[stream] = nil
            for index in log.readModels.orders.indices where log.readModels.orders[index].stream == stream {
                let (position, _, order) = log.readModels.orders[index]
                log.readModels.orders[index] = (position, "", LogDecider.anonymized(order))
            }
        }

        func appendAudits(_ request: AppendRequest) throws { _ = try log.append([request]) }
    }
}
