import FlowLogBasics
import FlowLogSystem

/// What a tracker's deliveries came to, kept beside its dead letters in the tracker folder (not in
/// the log: a log can be read-only to `projections status`, and these are the tracker's own facts).
public struct DeliveryStats: Equatable, Sendable {
    public var delivered = 0
    public var retried = 0
    public var deadLettered = 0
    public var lastError: String?

    public init() {}
}

/// A tracker's dead-letter file (NDJSON: each refused message with the status and the response
/// body) and its delivery counters.
public final class DeliveryJournal {
    public let folder: String
    public let tracker: String

    public init(folder: String, tracker: String) { (self.folder, self.tracker) = (folder, tracker) }

    public var deadLetterPath: String { "\(folder)/\(tracker).dead-letters.ndjson" }
    public var statsPath: String { "\(folder)/\(tracker).delivery.json" }

    /// The counters, or `nil` when the tracker never posted to an endpoint (a file sink keeps none).
    public func recordedStats() -> DeliveryStats? {
        access(statsPath, F_OK) == 0 ? stats() : nil
    }

    /// The counters so far; zero before the first delivery.
    public func stats() -> DeliveryStats {
        var stats = DeliveryStats()
        guard let text = try? readText(statsPath), let value = try? JSONParser.parse(text) else { return stats }
        if case .integer(let n)? = value["delivered"] { stats.delivered = n }
        if case .integer(let n)? = value["retried"] { stats.retried = n }
        if case .integer(let n)? = value["deadLettered"] { stats.deadLettered = n }
        if case .string(let error)? = value["lastError"] { stats.lastError = error }
        return stats
    }

    /// Adds to the counters and, when given, replaces the last error. Written to a new file and
    /// renamed, so a reader never sees half of it.
    public func count(delivered: Int = 0, retried: Int = 0, deadLettered: Int = 0, error: String? = nil) throws {
        try FileLock.exclusively(lockPath) { try add(delivered: delivered, retried: retried, deadLettered: deadLettered, error: error) }
    }

    /// The parts of a split tracker, run by several processes, share its journal: each change is
    /// read, made and written under this file's lock.
    var lockPath: String { "\(folder)/\(tracker).journal.lock" }

    private func add(delivered: Int, retried: Int, deadLettered: Int, error: String?) throws {
        var stats = stats()
        stats.delivered += delivered
        stats.retried += retried
        stats.deadLettered += deadLettered
        if let error { stats.lastError = error }
        var json = JSONWriter()
        json.beginObject()
        json.key("delivered")
        json.int(stats.delivered)
        json.key("retried")
        json.int(stats.retried)
        json.key("deadLettered")
        json.int(stats.deadLettered)
        json.key("lastError")
        json.string(stats.lastError)
        json.endObject()
        json.newline()
        let temporary = statsPath + ".new"
        try writeFile(temporary, json.bytes, append: false)
        guard rename(temporary, statsPath) == 0 else { throw FlowLogError.input("Cannot replace \(statsPath): \(String(cString: strerror(errno))).") }
    }

    /// Appends refused messages, synced before returning: the checkpoint moves past them next.
    public func deadLetter(_ messages: [TrackerMessage], status: Int?, response: [UInt8], reason: String) throws {
        guard !messages.isEmpty else { return }
        var json = JSONWriter()
        let responseText = String(decoding: response.prefix(4_096), as: UTF8.self)
        for message in messages {
            json.beginObject()
            json.key("tracker")
            json.string(tracker)
            json.key("id")
            json.string(message.id)
            json.key("position")
            json.int(message.position)
            json.key("client")
            json.string(message.client)
            json.key("timestamp_micros")
            json.int(Int(message.timestampMicros))
            json.key("status")
            if let status { json.int(status) } else { json.null() }
            json.key("reason")
            json.string(reason)
            json.key("response")
            json.string(responseText)
            json.key("message")
            json.encodedValue(message.bytes)
            json.endObject()
            json.newline()
        }
        try FileLock.exclusively(lockPath) {
            try writeFile(deadLetterPath, json.bytes, append: true)
            try add(delivered: 0, retried: 0, deadLettered: messages.count, error: reason)
        }
    }

    /// Takes the dead letters out of their file, for a replay: the file is renamed aside, read, and
    /// removed once `resend` returns (letters refused again are appended to a new file by then).
    public func takeDeadLetters(_ resend: ([TrackerMessage]) throws -> Void) throws -> Int {
        let aside = deadLetterPath + ".replaying"
        if access(aside, F_OK) != 0 {
            guard access(deadLetterPath, F_OK) == 0 else { return 0 }
            guard rename(deadLetterPath, aside) == 0 else {
                throw FlowLogError.input("Cannot move \(deadLetterPath) aside: \(String(cString: strerror(errno))).")
            }
        }
        var messages: [TrackerMessage] = []
        for line in try readText(aside).split(separator: "\n") where !line.isEmpty {
            guard let letter = try? JSONParser.parse(String(line)), case .string(let id)? = letter["id"],
                case .integer(let position)? = letter["position"], case .string(let client)? = letter["client"],
                case .integer(let micros)? = letter["timestamp_micros"], let message = letter["message"]
            else {
                throw FlowLogError.input(
                    "\(aside) has a line that is not a dead letter of FlowLog's: \(TerminalSafe.short(String(line))). Mend or remove that line, then run replay-dead-letters again."
                )
            }
            var json = JSONWriter()
            json.value(message)
            messages.append(TrackerMessage(position: position, id: id, client: client, timestampMicros: Int64(micros), bytes: json.bytes))
        }
        try resend(messages)
        unlink(aside)
        return messages.count
    }

    private func readText(_ path: String) throws -> String {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw FlowLogError.input("Cannot read \(path): \(String(cString: strerror(errno))).") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func writeFile(_ path: String, _ bytes: [UInt8], append: Bool) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0o644)
        guard descriptor >= 0 else {
            throw FlowLogError.input("Cannot write \(path): \(String(cString: strerror(errno))). Choose another folder with --tracker-dir.")
        }
        defer { close(descriptor) }
        try FileDescriptorOutput(fileDescriptor: descriptor).write(bytes)
        guard fsync(descriptor) == 0 else { throw FlowLogError.input("Cannot sync \(path): \(String(cString: strerror(errno))).") }
    }
}

/// Short, printable excerpts of foreign text for messages (the CLI escapes them again on output).
enum TerminalSafe {
    static func short(_ text: String) -> String {
        let cut = text.count > 80 ? String(text.prefix(80)) + "…" : text
        return String(cut.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }
}
