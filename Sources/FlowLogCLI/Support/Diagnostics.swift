import FlowLogBasics
import FlowLogSystem

/// Standard error: diagnostics for people, escaped as every text for a terminal is (`TerminalText`).
enum Diagnostics {
    /// Writes `flowlog: MESSAGE` as one line.
    static func write(_ message: String) {
        writeRaw("\(Program.name): " + TerminalText.escaped(message) + "\n")
    }

    /// Writes ArgumentParser's message for a usage error: its lines stay lines, and everything else
    /// a terminal would act on is escaped.
    static func writeUsage(_ text: String) {
        writeRaw(TerminalText.escaped(text, keepingLineFeeds: true) + "\n")
    }

    private static func writeRaw(_ text: String) {
        // Nothing more can be said if standard error cannot be written.
        try? FileDescriptorOutput(fileDescriptor: STDERR_FILENO).write(Array(text.utf8))
    }
}
