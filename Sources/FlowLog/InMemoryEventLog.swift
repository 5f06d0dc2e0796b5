import FlowDomain

/// An event log in memory with the same contract as `LMDBEventLog`, for tests and for fast
/// what-if runs. Not durable, not shared between processes.
public final class InMemoryEventLog: EventLog {
    private var records: [RecordedEvent] = []
    private var streamPositions: [String: [Int]] = [:]
    private var receipts: [String: [String: CommandReceipt]] = [:]

    public init() {}

    public func append(_ requests: [AppendRequest]) throws -> [AppendResult] {
        var results: [AppendResult] = []
        var poisoned: Set<String> = []
        for request in requests {
            let current = streamPositions[request.stream]?.count ?? 0
            if request.chained, poisoned.contains(request.stream) {
                results.append(.conflict(actualVersion: current))
                continue
            }
            if let id = request.commandId, let receipt = receipts[request.stream]?[id] {
                poisoned.insert(request.stream)
                results.append(.duplicate(receipt))
                continue
            }
            if let expected = request.expectedVersion, expected != current {
                poisoned.insert(request.stream)
                results.append(.conflict(actualVersion: current))
                continue
            }
            let first = records.count + 1
            for (offset, new) in request.events.enumerated() {
                let position = first + offset
                records.append(RecordedEvent(position: position, stream: request.stream, version: current + offset + 1,
                                             eventId: new.eventId, timestamp: new.timestamp, actor: new.actor,
                                             correlationId: new.correlationId, causationId: new.causationId, event: new.event))
                streamPositions[request.stream, default: []].append(position)
            }
            let receipt = CommandReceipt(firstPosition: first, eventCount: request.events.count, version: current + request.events.count)
            if let id = request.commandId { receipts[request.stream, default: [:]][id] = receipt }
            poisoned.remove(request.stream)
            results.append(.appended(receipt))
        }
        return results
    }

    public func version(of stream: String) throws -> Int { streamPositions[stream]?.count ?? 0 }

    public func receipt(stream: String, commandId: String) throws -> CommandReceipt? { receipts[stream]?[commandId] }

    public func lastPosition() throws -> Int { records.count }

    public func forEachEvent(from: Int, through: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        let upper = min(through ?? records.count, records.count)
        guard from <= upper else { return }
        for record in records[max(from, 1) - 1..<upper] {
            guard try body(record) else { return }
        }
    }

    public func forEachEvent(inStream stream: String, throughPosition: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        for position in streamPositions[stream] ?? [] {
            if let throughPosition, position > throughPosition { return }
            guard try body(records[position - 1]) else { return }
        }
    }
}
