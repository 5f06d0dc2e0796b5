import FlowLogSystem

/// The lines of NDJSON held whole in memory (a request's body, a dropped export), by the rules
/// `LineReader` applies to a stream: a UTF-8 byte order mark before the first line is not part of
/// it, a CRLF ending loses its CR, and a last line without its newline still counts.
public enum NDJSONLines {
    /// The length of the byte order mark (EF BB BF) at the start of `bytes`, which some Windows
    /// tools write: 3, or 0 where there is none.
    @inlinable
    public static func byteOrderMarkLength(_ bytes: UnsafeRawBufferPointer) -> Int {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    }

    /// Calls `body` with each line of `bytes` (without its line end) and its number, from 1.
    public static func forEach(in bytes: UnsafeRawBufferPointer,
                               _ body: (_ line: UnsafeRawBufferPointer, _ number: Int) throws -> Void) rethrows {
        guard let base = bytes.baseAddress else { return }
        var start = byteOrderMarkLength(bytes)
        var number = 0
        while start < bytes.count {
            // memchr finds the newlines: a byte loop is several times slower on large bodies.
            let end = memchr(base + start, 0x0A, bytes.count - start).map { base.distance(to: UnsafeRawPointer($0)) } ?? bytes.count
            var lineEnd = end
            if lineEnd > start, bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            number += 1
            try body(UnsafeRawBufferPointer(rebasing: bytes[start..<lineEnd]), number)
            start = end + 1
        }
    }
}
