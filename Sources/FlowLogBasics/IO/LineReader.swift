import FlowLogSystem

/// Reads a file descriptor in large chunks and hands out the complete lines each chunk holds.
///
/// `send` decides and commits each chunk's lines as one batch, so a file or pipe gets big batches
/// (group commit) while a person typing gets each line answered as soon as it is entered.
public struct LineReader: Sendable {
    /// Longest accepted line; a longer one is answered as malformed and skipped (documented limit).
    public static let maximumLineLength = 1 << 20

    public enum Line {
        case text(UnsafeRawBufferPointer)
        /// A line over the limit; its bytes are dropped.
        case tooLong(length: Int)
    }

    private let fileDescriptor: Int32
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var atEndOfInput = false
    private var skippingOverlongLine = false
    private var overlongLength = 0
    /// Until the first bytes are seen: a UTF-8 byte order mark there (EF BB BF, which some Windows
    /// tools write) is not part of the first line, and is dropped.
    private var atStartOfInput = true

    /// The most bytes the next read may add. The first read takes `firstRead`, and each read after
    /// takes twice the one before, up to `chunkSize`: the first lines reach their consumer after
    /// 64 KiB rather than 1 MiB, so `send` decides (and creates its log with) a small first batch
    /// while the rest is read, instead of one core idling through the first megabyte's parse and
    /// the other through a first commit of 13,000 commands.
    private var readLimit: Int

    public init(fileDescriptor: Int32, chunkSize: Int = 1 << 20, firstRead: Int = 64 << 10) {
        self.fileDescriptor = fileDescriptor
        self.buffer = [UInt8](repeating: 0, count: chunkSize)
        readLimit = max(1, min(firstRead, chunkSize))
    }

    /// Calls `body` with every complete line that one read makes available; returns `false` at the
    /// end of input. The buffers are valid only during the call.
    public mutating func readBatch(_ body: ([Line]) throws -> Void) throws -> Bool {
        while true {
            var lines: [Line] = []
            var ranges: [Range<Int>] = []
            var overlong: [(Int, Int)] = []
            if atStartOfInput { skipByteOrderMark() }
            buffer.withUnsafeBytes { raw in
                while let line = NDJSONLines.nextLine(in: raw, from: start, to: end) {
                    if skippingOverlongLine {
                        overlong.append((ranges.count + overlong.count, overlongLength + line.newline - start))
                        skippingOverlongLine = false
                    } else {
                        ranges.append(line.text)
                    }
                    start = line.newline + 1
                }
                if atEndOfInput, start < end || skippingOverlongLine {
                    if skippingOverlongLine {
                        overlong.append((ranges.count + overlong.count, overlongLength + end - start))
                        skippingOverlongLine = false
                    } else {
                        ranges.append(NDJSONLines.lastLine(in: raw, from: start, to: end))
                    }
                    start = end
                }
            }
            if !ranges.isEmpty || !overlong.isEmpty {
                try buffer.withUnsafeBytes { raw in
                    var rangeIndex = 0
                    var overlongIndex = 0
                    for slot in 0..<(ranges.count + overlong.count) {
                        if overlongIndex < overlong.count, overlong[overlongIndex].0 == slot {
                            lines.append(.tooLong(length: overlong[overlongIndex].1))
                            overlongIndex += 1
                        } else {
                            lines.append(.text(UnsafeRawBufferPointer(rebasing: raw[ranges[rangeIndex]])))
                            rangeIndex += 1
                        }
                    }
                    try body(lines)
                }
            }
            if atEndOfInput { return false }
            try fill()
            if !lines.isEmpty { return true }
        }
    }

    /// Drops a byte order mark at the start of the input once three bytes (or the end of the
    /// input, or a line end) have arrived; until then no line can be complete without it.
    private mutating func skipByteOrderMark() {
        let available = end - start
        let decided = available >= 3 || atEndOfInput || buffer[start..<end].contains(0x0A)
        guard decided else { return }
        atStartOfInput = false
        start += buffer.withUnsafeBytes { NDJSONLines.byteOrderMarkLength(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
    }

    private mutating func fill() throws {
        if start > 0 {
            // Keep the unfinished line at the front of the buffer.
            let pending = end - start
            if pending > 0 { buffer.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: $0.baseAddress! + start, byteCount: pending) } }
            start = 0
            end = pending
        }
        if end == buffer.count {
            if buffer.count < Self.maximumLineLength {
                buffer.append(contentsOf: [UInt8](repeating: 0, count: buffer.count))
            } else {
                // The line is longer than the limit: forget its bytes, remember its length.
                if !skippingOverlongLine { overlongLength = 0 }
                skippingOverlongLine = true
                overlongLength += end
                end = 0
            }
        }
        let limit = readLimit
        let count = buffer.withUnsafeMutableBytes { raw in
            FlowLogSystem.read(fileDescriptor, raw.baseAddress! + end, min(raw.count - end, limit))
        }
        if count > 0 { readLimit = min(readLimit * 2, buffer.count) }
        if count < 0 {
            if errno == EINTR { return }
            throw FlowLogError.input("Reading the input failed: \(String(cString: strerror(errno))).")
        }
        if count == 0 { atEndOfInput = true }
        end += count
    }
}
