#if Network
    import FlowLogBasics
    import Foundation
    import Logging
    import Synchronization

    /// swift-log as one JSON object a line (`time`, `level`, `label`, `message` and
    /// the metadata as members, sorted by name), so access logs can be read by a program.
    ///
    /// Every request logs a line, so the line is built as bytes (no `String(format:)`, no Foundation
    /// `Data`) and written with one `write(2)`: formatting it the Foundation way cost about a tenth
    /// of the server's CPU at 5,000 requests/s.
    struct JSONLineLogHandler: LogHandler {
        let label: String
        var logLevel: Logger.Level = .info
        var metadata: Logger.Metadata = [:]
        /// Where each whole line goes: `standardError` for `flowlog serve`, a buffer in the tests.
        let output: @Sendable ([UInt8]) -> Void
        /// Held for each line's `write(2)`, so lines never interleave.
        private static let lock = Mutex(())

        init(label: String, output: @escaping @Sendable ([UInt8]) -> Void) {
            self.label = label
            self.output = output
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let line = Self.line(
                time: Self.now(), level: event.level.rawValue, label: label, message: "\(event.message)",
                metadata: metadata.isEmpty ? event.metadata ?? [:] : metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }))
            output(line)
        }

        /// One line on standard error, with one `write(2)` under a lock, so lines never interleave.
        static func standardError(_ line: [UInt8]) {
            lock.withLock { _ in
                line.withUnsafeBytes { raw in
                    var offset = 0
                    while offset < raw.count {
                        let written = write(STDERR_FILENO, raw.baseAddress! + offset, raw.count - offset)
                        if written < 0, errno == EINTR { continue }
                        if written <= 0 { break }  // a closed stderr loses the line, never the request
                        offset += written
                    }
                }
            }
        }

        /// One log line, newline included: through the JSON writer, with DEL escaped too, since these
        /// lines go to a terminal as often as to a program.
        static func line(time: timespec, level: String, label: String, message: String, metadata: Logger.Metadata) -> [UInt8] {
            var json = JSONWriter(capacity: 256)
            json.escapesDelete = true
            json.beginObject()
            json.key("time")
            json.timestamp(Timestamp(microseconds: Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1_000))
            json.key("level")
            json.string(level)
            json.key("label")
            json.string(label)
            json.key("message")
            json.string(message)
            for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
                json.key(dynamic: key)
                switch value {
                case .string(let text): json.string(text)
                case .stringConvertible(let convertible): json.string(convertible.description)
                default: json.string("\(value)")
                }
            }
            json.endObject()
            json.newline()
            return json.bytes
        }

        static func now() -> timespec {
            var time = timespec()
            clock_gettime(CLOCK_REALTIME, &time)
            return time
        }

        /// Milliseconds with three decimals (`15.230`), as the access log writes a request's time.
        static func milliseconds(_ duration: Duration) -> String {
            let (seconds, attoseconds) = duration.components
            let micros = max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
            let fraction = micros % 1000
            return "\(micros / 1000)." + (fraction < 10 ? "00" : fraction < 100 ? "0" : "") + "\(fraction)"
        }
    }
#endif
