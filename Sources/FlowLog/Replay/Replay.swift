import FlowDomain

/// Where replayed events come from: a log, or an NDJSON export read directly (no import needed).
public protocol ReplaySource {
    /// The events in position order, restricted to `stream` when given, and to positions `from...to`.
    func forEachEvent(stream: String?, from: Int, to: Int?, _ body: (RecordedEvent) throws -> Bool) throws

    /// A stream's state just before global position `position` (the starting point of a replay from there).
    func state(ofStream stream: String, before position: Int) throws -> FlowState
}

public struct NDJSONFileSource: ReplaySource {
    public let path: String

    public init(path: String) throws {
        guard access(path, R_OK) == 0 else { throw FlowLogError.input("Cannot read \(path): \(String(cString: strerror(errno))). Check the path.") }
        self.path = path
    }

    public func forEachEvent(stream: String?, from: Int, to: Int?, _ body: (RecordedEvent) throws -> Bool) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw FlowLogError.input("Cannot read \(path): \(String(cString: strerror(errno))).") }
        defer { close(descriptor) }
        var reader = LineReader(fileDescriptor: descriptor)
        var lineNumber = 0
        var stop = false
        while try !stop && reader.readBatch({ lines in
            for line in lines where !stop {
                lineNumber += 1
                guard case .text(let bytes) = line else {
                    throw FlowLogError.input("Line \(lineNumber) of \(path) is longer than \(LineReader.maximumLineLength) bytes.")
                }
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                let record: RecordedEvent
                do {
                    record = try RecordedEventJSON.decode(bytes)
                } catch let problem as RecordedEventJSON.Problem {
                    throw FlowLogError.input("Line \(lineNumber) of \(path) is not an exported event: \(problem.message).")
                }
                if let stream, record.stream != stream { continue }
                if record.position < from { continue }
                if let to, record.position > to { stop = true; continue }
                stop = try !body(record)
            }
        }) {}
    }

    public func state(ofStream stream: String, before position: Int) throws -> FlowState {
        var state = FlowDecider.initialState
        try forEachEvent(stream: stream, from: 1, to: position - 1) { record in
            FlowDecider.evolve(&state, record.event)
            return true
        }
        return state
    }
}

/// Folds events from a source, stream by stream, handing each step's states to the caller.
public struct Replayer {
    public struct Step {
        public let record: RecordedEvent
        public let before: FlowState
        public let after: FlowState
    }

    public let source: any ReplaySource

    public init(source: any ReplaySource) {
        self.source = source
    }

    /// Replays events `from...to` (of `stream`, or of every stream); each stream starts from its state
    /// just before `from` (from a snapshot where the source has them). Returns the final states.
    @discardableResult
    public func run(stream: String?, from: Int = 1, to: Int? = nil, keepBefore: Bool = true,
                    _ body: (Step) throws -> Bool = { _ in true }) throws -> [String: (state: FlowState, version: Int)] {
        var states: [String: (state: FlowState, version: Int)] = [:]
        try source.forEachEvent(stream: stream, from: from, to: to) { record in
            var current = try states.removeValue(forKey: record.stream)
                ?? (from > 1 ? try source.state(ofStream: record.stream, before: from) : FlowDecider.initialState, record.version - 1)
            let before = keepBefore ? current.state : FlowDecider.initialState
            FlowDecider.evolve(&current.state, record.event)
            current.version = record.version
            let keepGoing = try body(Step(record: record, before: before, after: current.state))
            states[record.stream] = current
            return keepGoing
        }
        return states
    }
}

#if canImport(Glibc)
import Glibc
#endif
