import FlowLogBasics
import FlowLogSystem

/// Standard output. Every byte a subcommand writes as its result goes through one writer, in one
/// of three forms:
///
/// - `line(_:)`: one line of text for people, escaped for a terminal (`TerminalText`), so nothing
///   a log holds can move the cursor or reorder what is shown;
/// - `json(_:)`: one JSON document (written with `JSONWriter`, never by interpolation) and a newline;
/// - `sink`: for large outputs written in pieces (an export, `state --format json`, `send`'s answers
///   after each durable commit): each piece is written through at once, after the lines before it.
///
/// Lines and documents are gathered and written in blocks of about 1 MiB (line by line when
/// standard output is a terminal); `CommandExecution` writes what is left when the subcommand ends.
final class OutputWriter {
    private let output: FileDescriptorOutput
    private var pending: [UInt8] = []
    private var scratch = JSONWriter()
    private let writesEachLine: Bool
    private static let blockSize = 1 << 20

    init(fileDescriptor: Int32 = STDOUT_FILENO) {
        output = FileDescriptorOutput(fileDescriptor: fileDescriptor)
        writesEachLine = isatty(fileDescriptor) == 1
    }

    /// One line of text; a newline inside it is shown as `\n`, so a renderer gives each line apart.
    func line(_ text: String) {
        TerminalText.append(text, to: &pending)
        endLine()
    }

    func lines(_ texts: [String]) {
        for text in texts { line(text) }
    }

    /// A text FlowLog wrote itself (a reference, a help screen), line by line.
    func lines(of text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) { self.line(String(line)) }
    }

    /// One JSON document on a line of its own.
    func json(_ write: (inout JSONWriter) -> Void) {
        scratch.reset()
        write(&scratch)
        pending.append(contentsOf: scratch.bytes)
        endLine()
    }

    /// One result in the chosen format: a JSON object of the members `members` writes, or the
    /// line `text` (built only when asked for).
    func result(_ format: OutputFormat, text: @autoclosure () -> String, _ members: (inout JSONWriter) -> Void) {
        switch format {
        case .json: json { json in json.object(members) }
        case .text: line(text())
        }
    }

    /// Standard output for writers that produce their own bytes in pieces; each piece is written
    /// through, unbuffered, so what was written is out before the next piece begins.
    var sink: any OutputSink { PassThrough(writer: self) }

    /// Writes the gathered lines. A failure to write them is not reported, as `print` never did.
    func flush() {
        guard !pending.isEmpty else { return }
        try? output.write(pending)
        pending.removeAll(keepingCapacity: true)
    }

    private func endLine() {
        pending.append(0x0A)
        if writesEachLine || pending.count >= Self.blockSize { flush() }
    }

    private final class PassThrough: OutputSink {
        private let writer: OutputWriter
        init(writer: OutputWriter) { self.writer = writer }

        func write(_ bytes: [UInt8]) throws {
            writer.flush()
            try writer.output.write(bytes)
        }
    }
}
