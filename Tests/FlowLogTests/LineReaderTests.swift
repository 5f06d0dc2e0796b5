import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

@Suite("line reader")
struct LineReaderTests {
    /// `send` decides each read's lines as one batch: a small first read lets the writer start
    /// (and create a new log) while the rest is read, and doubling reads soon reach full batches.
    @Test func theFirstReadIsSmallAndEachAfterItTwiceAsLargeUpToTheChunkSize() throws {
        // Given 6,000 numbered lines of 100 bytes each in a file
        let lines = (0..<6_000).map { number in
            let label = "line \(number) "
            return label + String(repeating: "x", count: 99 - label.utf8.count)
        }
        let folder = TemporaryDirectory()
        let file = folder.child("lines.txt")
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let descriptor = open(file, O_RDONLY)
        defer { close(descriptor) }

        // When it is read with a first read of 16 KiB and chunks of 128 KiB
        var reader = LineReader(fileDescriptor: descriptor, chunkSize: 128 << 10, firstRead: 16 << 10)
        var batches: [[String]] = []
        while try reader.readBatch({ read in
            batches.append(
                read.compactMap { line in
                    guard case .text(let bytes) = line else { return nil }
                    return String(decoding: bytes, as: UTF8.self)
                })
        }) {}

        // Then every line comes once, whole and in order
        #expect(batches.flatMap { $0 } == lines)
        // And the reads grow 16, 32, 64, 128 KiB, then stay at 128 KiB (a read's lines may begin
        // with the end of the line the read before cut, under 100 bytes)
        let limits = [16, 32, 64, 128, 128].map { $0 << 10 }
        for (index, limit) in limits.enumerated() {
            let bytes = batches[index].count * 100
            #expect(bytes < limit + 100 && bytes > limit - 100, "read \(index + 1): \(bytes) bytes of lines")
        }
    }

    /// A line longer than the first read still comes whole: the reads go on growing until it ends.
    @Test func aLineLongerThanTheFirstReadComesWhole() throws {
        let long = String(repeating: "y", count: 50_000)
        let folder = TemporaryDirectory()
        let file = folder.child("lines.txt")
        try ("short\n" + long + "\nlast\n").write(toFile: file, atomically: true, encoding: .utf8)
        let descriptor = open(file, O_RDONLY)
        defer { close(descriptor) }

        var reader = LineReader(fileDescriptor: descriptor, chunkSize: 1 << 20, firstRead: 1_000)
        var read: [String] = []
        while try reader.readBatch({ lines in
            for case .text(let bytes) in lines { read.append(String(decoding: bytes, as: UTF8.self)) }
        }) {}

        #expect(read == ["short", long, "last"])
    }
}
