import FlowLogBasics
import FlowLogSystem

/// Takes forgotten streams' lines out of a tracker folder: the trackers' message files
/// (`segment.ndjson`, `ga4.ndjson`) and their dead letters (`*.dead-letters.ndjson`), whose lines
/// name their stream as Segment's `anonymousId`, GA4's `client_id` or the dead letter's `client`.
///
/// Each file is read once, a megabyte at a time, and written anew beside itself without those
/// lines, synced, then renamed over the old one: a crash leaves the old file or the new one. A
/// line's stream is found by its member, not by searching for each stream, so forgetting 10,000
/// sessions at once (`retain`) costs one pass as forgetting one does. The caller holds the
/// trackers' leases, so that no runner appends to a file while it is replaced.
public enum TrackerFileErasure {
    /// The members that name a line's stream, as the trackers write them.
    private static let members: [[UInt8]] = [#""anonymousId":""#, #""client_id":""#, #""client":""#].map { Array($0.utf8) }

    /// Rewrites every NDJSON file in `folder` without the lines of `streams`; returns each file
    /// that lost lines, with how many. A missing folder holds nothing to forget.
    public static func forget(streams: Set<String>, in folder: String) throws -> [(file: String, lines: Int)] {
        guard !streams.isEmpty, let directory = opendir(folder) else { return [] }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".ndjson") { names.append(name) }
        }
        closedir(directory)
        let ids = Set(streams.map { Array($0.utf8) })
        var changed: [(file: String, lines: Int)] = []
        for name in names.sorted() {
            let path = folder + "/" + name
            let dropped = try rewrite(path, dropping: ids)
            if dropped > 0 { changed.append((path, dropped)) }
        }
        if !changed.isEmpty { syncFolder(folder) }
        return changed
    }

    /// The stream a line names, if it names one of `ids`.
    static func belongs(_ line: ArraySlice<UInt8>, to ids: Set<[UInt8]>) -> Bool {
        for member in members {
            guard let found = line.firstRange(of: member) else { continue }
            let value = line[found.upperBound...]
            guard let end = value.firstIndex(of: UInt8(ascii: "\"")) else { continue }
            if ids.contains(Array(value[..<end])) { return true }
        }
        return false
    }

    private static func rewrite(_ path: String, dropping ids: Set<[UInt8]>) throws -> Int {
        let input = open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw FlowLogError.input("Cannot read the tracker file \(path): \(String(cString: strerror(errno))).") }
        defer { close(input) }
        let temporary = path + ".forgetting"
        let output = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw FlowLogError.input("Cannot write \(temporary): \(String(cString: strerror(errno))).") }
        var dropped = 0
        do {
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            var pending: [UInt8] = []
            var kept: [UInt8] = []
            while true {
                let count = read(input, &chunk, chunk.count)
                if count < 0, errno == EINTR { continue }
                guard count >= 0 else { throw FlowLogError.input("Cannot read the tracker file \(path): \(String(cString: strerror(errno))).") }
                if count == 0 { break }
                pending.append(contentsOf: chunk[..<count])
                var start = pending.startIndex
                while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    let line = pending[start...newline]
                    if belongs(line, to: ids) { dropped += 1 } else { kept.append(contentsOf: line) }
                    start = newline + 1
                }
                pending.removeSubrange(..<start)
                if kept.count >= 1 << 20 {
                    try writeAll(kept, to: output, path: temporary)
                    kept.removeAll(keepingCapacity: true)
                }
            }
            // A torn last line (a runner killed mid-write) stays as it was, unless it is the stream's.
            if !pending.isEmpty { if belongs(pending[...], to: ids) { dropped += 1 } else { kept.append(contentsOf: pending) } }
            try writeAll(kept, to: output, path: temporary)
            guard dropped > 0 else {
                close(output)
                unlink(temporary)
                return 0
            }
            guard fsync(output) == 0 else { throw FlowLogError.input("Cannot sync \(temporary): \(String(cString: strerror(errno))).") }
            close(output)
            guard rename(temporary, path) == 0 else { throw FlowLogError.input("Cannot replace \(path): \(String(cString: strerror(errno))).") }
            return dropped
        } catch {
            close(output)
            unlink(temporary)
            throw error
        }
    }

    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw FlowLogError.input("Cannot write \(path): \(String(cString: strerror(errno))).") }
            offset += written
        }
    }

    private static func syncFolder(_ folder: String) {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}
