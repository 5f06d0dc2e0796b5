import FlowDomain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `flowlog send`: reads commands one JSON object a line, answers one JSON line each, in order.
///
/// Each batch of lines that one read yields is decided and appended in one durable transaction, and
/// its answers are written only after that commit: an `ok` answer always means "on disk".
public final class SendSession {
    public struct Summary: Equatable, Sendable {
        public var accepted = 0
        public var duplicates = 0
        public var rejected = 0
        public var lines: Int { accepted + duplicates + rejected }

        public init(accepted: Int = 0, duplicates: Int = 0, rejected: Int = 0) {
            self.accepted = accepted
            self.duplicates = duplicates
            self.rejected = rejected
        }
    }

    private let processor: CommandProcessor
    private let output: OutputSink
    private var json = JSONWriter(capacity: 1 << 16)

    public init(processor: CommandProcessor, output: OutputSink) {
        self.processor = processor
        self.output = output
    }

    /// Reads and parses on a second thread while this one decides, commits and answers the batch
    /// before: parsing and waiting for the disk overlap, and the answers keep their order.
    public func run(reader: consuming LineReader) throws -> Summary {
        let handoff = Handoff<ParsedBatch>(capacity: 2)
        let input = ReaderBox(reader)
        Thread {
            do {
                while try input.reader.readBatch({ lines in
                    guard handoff.put(SendSession.parse(lines)) else { throw Handoff<ParsedBatch>.Cancelled() }
                }) {}
                handoff.close(error: nil)
            } catch {
                handoff.close(error: error)
            }
        }.start()
        var summary = Summary()
        do {
            if processor.defersCommits {
                try answerOverlapping(handoff, &summary)
            } else {
                while let batch = try handoff.take() { try write(batch, try processor.handle(batch.envelopes), &summary) }
            }
        } catch {
            handoff.cancel()
            throw error
        }
        return summary
    }

    /// One read's lines: the commands, and for each line its rejection if it is not a command.
    public struct ParsedBatch: Sendable {
        public var envelopes: [CommandEnvelope] = []
        /// One entry per line that is not blank, in order; `nil` for a line that became the next envelope.
        public var lineRejections: [WireRejection?] = []
    }

    private final class ReaderBox: @unchecked Sendable {
        var reader: LineReader
        init(_ reader: consuming LineReader) { self.reader = reader }
    }

    /// Lines as `send` reads them (blank lines skipped, an overlong line answered `malformedCommand`);
    /// the HTTP server parses an NDJSON body the same way.
    public static func parse(_ lines: [LineReader.Line]) -> ParsedBatch {
        var batch = ParsedBatch()
        batch.envelopes.reserveCapacity(lines.count)
        batch.lineRejections.reserveCapacity(lines.count)
        for line in lines {
            switch line {
            case .text(let bytes):
                // A blank line is no command and gets no answer (a script's trailing blank lines, a
                // separator a person typed).
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                switch WireCommand.decode(bytes) {
                case .success(let envelope):
                    batch.envelopes.append(envelope)
                    batch.lineRejections.append(nil)
                case .failure(let failure):
                    batch.lineRejections.append(failure)
                }
            case .tooLong(let length):
                batch.lineRejections.append(WireRejection(stream: nil, rejection: Rejection(.malformedCommand, "The line is \(length) bytes long, over the limit of \(LineReader.maximumLineLength); split it into smaller commands.")))
            }
        }
        return batch
    }

    /// With a log that defers commits (PostgreSQL): the next batch, when it has been read already, is
    /// decided while the server commits this one; this one's answers are written once its commit is
    /// confirmed. When no next batch is there yet, the answers are written as soon as the commit is
    /// done, so that a caller waiting for them before it writes more (a pipe, a person) gets them.
    private func answerOverlapping(_ handoff: Handoff<ParsedBatch>, _ summary: inout Summary) throws {
        var previous: (batch: ParsedBatch, outcomes: [CommandOutcome], commit: any PendingCommit)?
        while true {
            var next = previous == nil ? nil : handoff.poll()
            if next == nil {
                if let done = previous {
                    try done.commit.wait()
                    try write(done.batch, done.outcomes, &summary)
                    previous = nil
                }
                guard let taken = try handoff.take() else { return }
                next = taken
            }
            let batch = next!
            let (outcomes, commit) = try processor.handleDeferringCommit(batch.envelopes)
            if let done = previous {
                try done.commit.wait()
                try write(done.batch, done.outcomes, &summary)
            }
            previous = (batch, outcomes, commit)
        }
    }

    private func write(_ batch: ParsedBatch, _ outcomes: [CommandOutcome], _ summary: inout Summary) throws {
        var next = outcomes.makeIterator()
        json.reset()
        for rejection in batch.lineRejections {
            if let failure = rejection {
                json.beginObject()
                FlowJSON.writeRejection(stream: failure.stream, failure.rejection, into: &json)
                json.endObject()
                summary.rejected += 1
            } else {
                let outcome = next.next()!
                FlowJSON.writeAnswer(outcome, into: &json)
                switch outcome {
                case .accepted(let acceptance): if acceptance.duplicate { summary.duplicates += 1 } else { summary.accepted += 1 }
                case .rejected: summary.rejected += 1
                }
            }
            json.newline()
        }
        try output.write(json.bytes)
    }
}

/// A bounded queue between one producer thread and one consumer, so reading ahead never holds more
/// than `capacity` batches in memory.
final class Handoff<Item>: @unchecked Sendable {
    struct Cancelled: Error {}

    private let condition = NSCondition()
    private var items: [Item] = []
    private var closed = false
    private var cancelled = false
    private var failure: (any Error)?
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Waits for room; `false` when the consumer gave up.
    func put(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity, !cancelled { condition.wait() }
        guard !cancelled else { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    func close(error: (any Error)?) {
        condition.lock()
        closed = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// The next item; `nil` once the producer closed and everything was taken; the producer's error, if it failed.
    /// Once the handoff is cancelled, `Cancelled` (a consumer that is itself a stage of a pipeline
    /// must not wait for a producer that may never come back).
    func take() throws -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty, !closed, !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        if !items.isEmpty {
            condition.broadcast()
            return items.removeFirst()
        }
        if let failure, !(failure is Cancelled) { throw failure }
        return nil
    }

    /// The next item if one is waiting now; `nil` otherwise (the caller then `take`s, which waits,
    /// and reports the end or the producer's error).
    func poll() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        guard !items.isEmpty, !cancelled else { return nil }
        condition.broadcast()
        return items.removeFirst()
    }

    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Where results go: standard output in the CLI, a buffer in tests.
public protocol OutputSink: AnyObject {
    func write(_ bytes: [UInt8]) throws
}

/// Writes straight to a file descriptor, with no buffering of its own, so what was written is out
/// before the next batch begins.
public final class FileDescriptorOutput: OutputSink {
    private let fileDescriptor: Int32

    public init(fileDescriptor: Int32 = STDOUT_FILENO) {
        self.fileDescriptor = fileDescriptor
    }

    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(fileDescriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw FlowLogError.input("Writing the output failed: \(String(cString: strerror(errno))).")
                }
                offset += written
            }
        }
    }
}

/// Collects output in memory.
public final class BufferOutput: OutputSink {
    public private(set) var bytes: [UInt8] = []
    public init() {}
    public func write(_ bytes: [UInt8]) throws { self.bytes.append(contentsOf: bytes) }
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
