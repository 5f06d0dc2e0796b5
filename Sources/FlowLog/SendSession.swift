import FlowDomain
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

    public func run(reader: inout LineReader) throws -> Summary {
        var summary = Summary()
        while try reader.readBatch({ lines in try answer(lines, &summary) }) {}
        return summary
    }

    private func answer(_ lines: [LineReader.Line], _ summary: inout Summary) throws {
        var decoded: [Result<CommandEnvelope, WireRejection>] = []
        decoded.reserveCapacity(lines.count)
        var envelopes: [CommandEnvelope] = []
        envelopes.reserveCapacity(lines.count)
        for line in lines {
            switch line {
            case .text(let bytes):
                let result = WireCommand.decode(bytes)
                if case .success(let envelope) = result { envelopes.append(envelope) }
                decoded.append(result)
            case .tooLong(let length):
                decoded.append(.failure(WireRejection(stream: nil, rejection: Rejection(.malformedCommand, "The line is \(length) bytes long, over the limit of \(LineReader.maximumLineLength); split it into smaller commands."))))
            }
        }
        let outcomes = try processor.handle(envelopes)
        var next = outcomes.makeIterator()
        json.reset()
        for result in decoded {
            switch result {
            case .success:
                let outcome = next.next()!
                FlowJSON.writeAnswer(outcome, into: &json)
                switch outcome {
                case .accepted(let acceptance): if acceptance.duplicate { summary.duplicates += 1 } else { summary.accepted += 1 }
                case .rejected: summary.rejected += 1
                }
            case .failure(let failure):
                json.beginObject()
                FlowJSON.writeRejection(stream: failure.stream, failure.rejection, into: &json)
                json.endObject()
                summary.rejected += 1
            }
            json.newline()
        }
        try output.write(json.bytes)
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
                    throw InputError(message: "Writing the answers failed: \(String(cString: strerror(errno))).")
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
