import Foundation
import Logging

/// swift-log on standard error, one JSON object a line (`time`, `level`, `label`, `message` and
/// the metadata as members), so access logs can be read by a program.
struct JSONLineLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    private static let lock = NSLock()

    init(label: String) {
        self.label = label
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = "{\"time\":\"\(Self.now())\",\"level\":\"\(event.level.rawValue)\",\"label\":\(Self.quoted(label)),\"message\":\(Self.quoted("\(event.message)"))"
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }).sorted(by: { $0.key < $1.key }) {
            line += ",\(Self.quoted(key)):\(Self.quoted("\(value)"))"
        }
        line += "}\n"
        Self.lock.lock()
        FileHandle.standardError.write(Data(line.utf8))
        Self.lock.unlock()
    }

    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }

    static func now() -> String {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        var parts = tm()
        var seconds = time.tv_sec
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                      parts.tm_hour, parts.tm_min, parts.tm_sec, time.tv_nsec / 1000)
    }
}
