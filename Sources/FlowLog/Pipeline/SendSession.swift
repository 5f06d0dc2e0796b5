import Deciding
public import FlowLogBasics
public import FlowLogStore
import FlowLogSystem
import Foundation
import Synchronization
import Tracing

/// `flowlog send`: reads commands one JSON object a line, answers one JSON line each, in order.
///
/// Each batch of lines that one read yields is decided and appended in one durable transaction, and
/// its answers are written only after that commit: an `ok` answer always means "on disk".
///
/// Unchecked `Sendable`: the reading thread only parses and submits; answers are written on `run`'s thread, the writer's.
public final class SendSession: @unchecked Sendable {
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
    private let output: any OutputSink
    private var json = JSONWriter(capacity: 1 << 16)

    public init(
        processor: CommandProcessor, output: any OutputSink, commandsPerCommit: Int = SendSession.defaultCommandsPerCommit,
        streamsPerCommit: Int = AppendRules.streamsPerCommit
    ) {
        self.processor = processor
        self.output = output
        self.commandsPerCommit = commandsPerCommit
        self.streamsPerCommit = streamsPerCommit
    }

    /// How many commands one commit takes at most. A commit takes whatever has been parsed while
    /// the one before it went to disk, up to this: commands that trickle in are committed as they
    /// come, and the many small reads of a pipe (64 KiB each) go in as few commits as the 1 MiB
    /// reads of a file. Not more: each command in a commit holds about 2.7 KB of memory until the
    /// commit (its envelope, events, records and puts), and the process stays within 64 MB.
    public static let defaultCommandsPerCommit = 16_384
    private let commandsPerCommit: Int

    private let streamsPerCommit: Int

    /// Reads and parses on a second thread while this one decides, commits and answers what was
    /// read before, through the log's one writer (`GroupCommitWriter`): parsing and waiting for the
    /// disk overlap, every read that queued up meanwhile shares a commit, and the answers keep
    /// their order. Reading stops while half a commit's worth of commands waits (a read goes in
    /// whole once there is room): with two commits' worth, many sessions taking one command each in
    /// turn (commits of 4,096 streams) kept several commits' envelopes queued, and `send` took more
    /// memory; with half, less memory in the same time, and piped input no slower.
    public func run(reader: consuming LineReader) throws -> Summary {
        let state = RunState()
        let writer = GroupCommitWriter(
            processor: processor, commandsPerCommit: commandsPerCommit, streamsPerCommit: streamsPerCommit,
            queueCapacity: max(commandsPerCommit / 2, 1),
            // The span of the program's `send`, when it made one: its commits' parent.
            traceParent: ServiceContext.current
        ) { [self] _ in
            // One write per commit, of every answer it carried.
            guard !json.bytes.isEmpty, state.failure == nil else { return }
            do { try output.write(json.bytes) } catch { state.fail(error) }
            json.reset()
        }
        state.writer = writer
        let input = reader
        let streamsPerCommit = streamsPerCommit
        // Made here, then used by the reading thread alone; it reads the log beside the writer, as
        // `StatePrefetching` allows.
        nonisolated(unsafe) let prefetcher = StatePrefetcher(log: processor.log)
        Thread {
            var reader = input
            do {
                while try reader.readBatch({ lines in
                    for whole in SendSession.parse(lines).parts(streamsAtMost: streamsPerCommit) {
                        for (part, states, pages) in prefetcher?.slices(of: whole) ?? [(whole, LoadedAhead(), nil)] {
                            guard
                                writer.submit(
                                    part.envelopes, fieldsChecked: true, prefetched: states, streams: part.streams, pages: pages,
                                    answer: { [self] result in
                                        switch result {
                                        case .success(let outcomes): state.count { write(part, outcomes, &$0) }
                                        case .failure(let error): state.fail(error)
                                        }
                                    })
                            else { throw WriterStopped() }
                        }
                    }
                }) {}
            } catch {
                if !(error is WriterStopped) { state.readFailure = error }
            }
            writer.finish()
        }.start()
        writer.run()
        if let failure = state.failure ?? state.readFailure { throw failure }
        return state.summary
    }

    /// The writer stopped taking commands (a commit or the output failed): reading ends.
    private struct WriterStopped: Error {}

    /// What the writer's answers and the reading thread leave for `run` to return or throw.
    private final class RunState: Sendable {
        private struct Outcome {
            var summary = Summary()
            var failure: (any Error)?
            var readFailure: (any Error)?
            weak var writer: GroupCommitWriter?
        }

        private let outcome = Mutex(Outcome())

        var summary: Summary { outcome.withLock { $0.summary } }
        /// The first commit or output failure: nothing after it is committed.
        var failure: (any Error)? { outcome.withLock { $0.failure } }
        /// Set by the reading thread before it finishes the writer, read after `run()` returns.
        var readFailure: (any Error)? {
            get { outcome.withLock { $0.readFailure } }
            set { outcome.withLock { $0.readFailure = newValue } }
        }
        /// The writer that `fail` cancels.
        var writer: GroupCommitWriter? {
            get { outcome.withLock { $0.writer } }
            set { outcome.withLock { $0.writer = newValue } }
        }

        /// Adds answers to the summary (`body` runs on the writer's thread, holding the lock; it only counts and formats).
        func count(_ body: (inout Summary) -> Void) {
            outcome.withLock { body(&$0.summary) }
        }

        func fail(_ error: any Error) {
            let writer = outcome.withLock { outcome in
                if outcome.failure == nil { outcome.failure = error }
                return outcome.writer
            }
            writer?.cancel()
        }
    }

    /// One read's lines: the commands, and for each line its rejection if it is not a command.
    public struct ParsedBatch: Sendable {
        public var envelopes: [CommandEnvelope] = []
        /// One entry per line that is not blank, in order; `nil` for a line that became the next envelope.
        public var lineRejections: [WireRejection?] = []
        /// The streams the envelopes name, where cutting the batch counted them (`parts`), so
        /// that the writer need not count them again to weigh the next part beside this one.
        var streams: Set<String>?

        public init() {}

        /// This batch cut between lines into parts whose commands name at most `limit` streams
        /// each, in order; itself, not copied, when it names no more.
        func parts(streamsAtMost limit: Int) -> [ParsedBatch] {
            guard envelopes.count > limit else { return [self] }
            // Where each part after the first begins: its first envelope and its first line.
            var cuts: [(envelope: Int, line: Int)] = []
            /// Each part's streams, as counted.
            var counted: [Set<String>] = []
            var budget = StreamBudget(limit: limit)
            var line = 0
            // By index: a `for` over the envelopes copied each one.
            for index in envelopes.indices {
                while lineRejections[line] != nil { line += 1 }
                if !budget.admits(envelopes[index].stream) {
                    cuts.append((index, line))
                    counted.append(budget.counted)
                    budget.reset()
                    _ = budget.admits(envelopes[index].stream)
                }
                line += 1
            }
            counted.append(budget.counted)
            guard !cuts.isEmpty else {
                var whole = self
                whole.streams = counted[0]
                return [whole]
            }
            return zip(cut(at: cuts), counted).map { part, streams in
                var part = part
                part.streams = streams
                return part
            }
        }

        /// This batch cut before each of the envelopes `starts` names (ascending, none the first),
        /// each line with its envelope; the parts' streams are not counted.
        func cut(atEnvelopes starts: [Int]) -> [ParsedBatch] {
            var cuts: [(envelope: Int, line: Int)] = []
            var envelope = 0
            for line in lineRejections.indices where lineRejections[line] == nil {
                if cuts.count < starts.count, envelope == starts[cuts.count] { cuts.append((envelope, line)) }
                envelope += 1
            }
            return cut(at: cuts)
        }

        /// The parts between `cuts`, each the first envelope and line of a part after the first.
        private func cut(at cuts: [(envelope: Int, line: Int)]) -> [ParsedBatch] {
            let starts = [(envelope: 0, line: 0)] + cuts
            let ends = cuts + [(envelope: envelopes.count, line: lineRejections.count)]
            return zip(starts, ends).map { start, end in
                var part = ParsedBatch()
                part.envelopes = Array(envelopes[start.envelope..<end.envelope])
                part.lineRejections = Array(lineRejections[start.line..<end.line])
                return part
            }
        }
    }

    /// Lines as `send` reads them (blank lines skipped, an overlong line answered `malformedCommand`);
    /// the HTTP server parses an NDJSON body the same way. A command whose envelope or fields break
    /// their checks (`CommandProcessor.envelopeViolation`) is answered here, on the reading thread,
    /// as the processor would answer it, so every envelope of the batch is checked.
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
                    if let rejection = CommandProcessor.envelopeViolation(envelope) {
                        batch.lineRejections.append(WireRejection(stream: envelope.stream, rejection: rejection))
                    } else {
                        batch.envelopes.append(envelope)
                        batch.lineRejections.append(nil)
                    }
                case .failure(let failure):
                    batch.lineRejections.append(failure)
                }
            case .tooLong(let length):
                batch.lineRejections.append(
                    WireRejection(
                        stream: nil,
                        rejection: Rejection(
                            .malformedCommand,
                            "The line is \(length) bytes long, over the limit of \(LineReader.maximumLineLength); split it into smaller commands.")))
            }
        }
        return batch
    }

    /// Appends the answers of one part, its rejected lines among them, to the commit's output.
    /// The outcomes are read in place, through their buffer: an iterator, or the array's subscript
    /// beside the writer's own buffer, copied each one, retaining its strings and events.
    private func write(_ batch: ParsedBatch, _ outcomes: [CommandOutcome], _ summary: inout Summary) {
        outcomes.withUnsafeBufferPointer { write(batch, $0, &summary) }
    }

    private func write(_ batch: ParsedBatch, _ outcomes: UnsafeBufferPointer<CommandOutcome>, _ summary: inout Summary) {
        var next = 0
        for rejection in batch.lineRejections {
            if let failure = rejection {
                json.beginObject()
                FlowJSON.writeRejection(stream: failure.stream, failure.rejection, into: &json)
                json.endObject()
                summary.rejected += 1
            } else {
                FlowJSON.writeAnswer(outcomes[next], into: &json)
                Self.count(outcomes[next], in: &summary)
                next += 1
            }
            json.newline()
        }
    }
}

extension SendSession {
    /// Counts one answer; a parameter is read in place, where a `switch` over the array's element
    /// copied the acceptance (its stream and events) to read one flag.
    static func count(_ outcome: CommandOutcome, in summary: inout Summary) {
        switch outcome {
        case .accepted(let acceptance): if acceptance.duplicate { summary.duplicates += 1 } else { summary.accepted += 1 }
        case .rejected: summary.rejected += 1
        }
    }
}
