import Foundation
import OpenAPIRuntime

/// FlowLog's times (`Timestamp` in openapi.json): RFC 3339 in UTC with six fraction digits, as the
/// command line and the server write them (`2026-11-21T13:40:29.204217Z`). The runtime's default
/// transcoder reads no fraction at all, and its fractional one needs one and keeps milliseconds (on
/// Linux: `…29.204217Z` reads as `…29.204Z`); this one reads
/// any number of fraction digits (or none) and writes microseconds, so a time read and written again
/// is the same text. `Client(serverURL:token:…)` uses it; a client made with the generated
/// initialiser passes `Configuration(dateTranscoder: .flowLog)`.
public struct FlowLogDateTranscoder: DateTranscoder {
    public struct InvalidTimestamp: Error, CustomStringConvertible {
        public let text: String
        public var description: String { "\(text) is not an RFC 3339 time in UTC such as 2026-11-21T13:40:29.204217Z" }
    }

    public init() {}

    public func encode(_ date: Date) throws -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let seconds = Self.floorDivide(micros, 1_000_000)
        let fraction = micros - seconds * 1_000_000
        let days = Self.floorDivide(seconds, 86_400)
        let ofDay = seconds - days * 86_400
        let (year, month, day) = Self.civil(days: days)
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return
            "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T\(padded(ofDay / 3600, 2)):\(padded(ofDay / 60 % 60, 2)):\(padded(ofDay % 60, 2)).\(padded(fraction, 6))Z"
    }

    public func decode(_ text: String) throws -> Date {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) throws -> Int64 {
            guard range.upperBound <= bytes.count else { throw InvalidTimestamp(text: text) }
            var value: Int64 = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { throw InvalidTimestamp(text: text) }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes.last == UInt8(ascii: "Z")
        else {
            throw InvalidTimestamp(text: text)
        }
        let (year, month, day) = (try number(0..<4), try number(5..<7), try number(8..<10))
        let (hour, minute, second) = (try number(11..<13), try number(14..<16), try number(17..<19))
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { throw InvalidTimestamp(text: text) }
        var fraction = 0.0
        if bytes.count > 20 {
            let digits = 20..<(bytes.count - 1)
            guard bytes[19] == UInt8(ascii: "."), !digits.isEmpty, digits.count <= 9 else { throw InvalidTimestamp(text: text) }
            fraction = Double(try number(digits)) / pow(10, Double(digits.count))
        } else if bytes.count != 20 {
            throw InvalidTimestamp(text: text)
        }
        let seconds = Self.days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day since 1970-01-01 (`civil_from_days`).
    private static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension DateTranscoder where Self == FlowLogDateTranscoder {
    /// FlowLog's times: RFC 3339 in UTC, microseconds (`FlowLogDateTranscoder`).
    public static var flowLog: Self { FlowLogDateTranscoder() }
}
