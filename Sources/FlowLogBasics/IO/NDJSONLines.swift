import FlowLogSystem

/// How NDJSON splits into lines, written once for every reader of it: `send`, `import` and
/// `replay --file` (through `LineReader`, which reads a stream in chunks), `POST /commands` and the
/// inspector's sessions (a body held whole in memory, `forEach`). A UTF-8 byte order mark before
/// the first line is not part of it, a CRLF ending loses its CR, and a last line without its
/// newline still counts.
public enum NDJSONLines {
    /// The length of the byte order mark (EF BB BF) at the start of `bytes`, which some Windows
    /// tools write: 3, or 0 where there is none.
    @inlinable
    public static func byteOrderMarkLength(_ bytes: UnsafeRawBufferPointer) -> Int {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    }

    /// The complete line that starts at `start` among `bytes[start..<end]`: its text without the
    /// line end, and where its newline is; `nil` when no newline follows (the line is not complete yet,
    /// or it is the input's last, which `lastLine` takes).
    @inline(__always)
    public static func nextLine(in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> (text: Range<Int>, newline: Int)? {
        guard start < end, let base = bytes.baseAddress,
            // memchr finds the newlines: a byte loop is several times slower on large inputs.
            let found = memchr(base + start, 0x0A, end - start)
        else { return nil }
        let newline = base.distance(to: UnsafeRawPointer(found))
        return (withoutCarriageReturn(bytes, start..<newline), newline)
    }

    /// The input's last line, `bytes[start..<end]`, which no newline ends: still a line.
    @inline(__always)
    public static func lastLine(in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Range<Int> {
        withoutCarriageReturn(bytes, start..<end)
    }

    @inline(__always)
    static func withoutCarriageReturn(_ bytes: UnsafeRawBufferPointer, _ line: Range<Int>) -> Range<Int> {
        line.count > 0 && bytes[line.upperBound - 1] == 0x0D ? line.lowerBound..<line.upperBound - 1 : line
    }

    /// Calls `body` with each line of `bytes` (without its line end) and its number, from 1.
    public static func forEach(
        in bytes: UnsafeRawBufferPointer,
        _ body: (_ line: UnsafeRawBufferPointer, _ number: Int) throws -> Void
    ) rethrows {
        var start = byteOrderMarkLength(bytes)
        var number = 0
        while let line = nextLine(in: bytes, from: start, to: bytes.count) {
            number += 1
            try body(UnsafeRawBufferPointer(rebasing: bytes[line.text]), number)
            start = line.newline + 1
        }
        if start < bytes.count {
            try body(UnsafeRawBufferPointer(rebasing: bytes[lastLine(in: bytes, from: start, to: bytes.count)]), number + 1)
        }
    }
}
