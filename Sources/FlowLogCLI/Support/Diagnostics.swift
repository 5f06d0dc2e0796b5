#if canImport(Glibc)
import Glibc
#endif

/// Standard error: diagnostics for people, escaped as every text for a terminal is (`TerminalText`).
enum Diagnostics {
    /// Writes `flowlog: MESSAGE` as one line.
    static func write(_ message: String) {
        writeRaw("flowlog: " + TerminalText.escaped(message) + "\n")
    }

    /// Writes ArgumentParser's message for a usage error: its lines stay lines, and everything else
    /// a terminal would act on is escaped.
    static func writeUsage(_ text: String) {
        writeRaw(TerminalText.escaped(text, keepingLineFeeds: true) + "\n")
    }

    private static func writeRaw(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
