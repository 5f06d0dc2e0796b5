import FlowLogSystem

/// A moment as microseconds since the Unix epoch, UTC. Events store it; reducers never read a clock.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var microseconds: Int64

    public init(microseconds: Int64) {
        self.microseconds = microseconds
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.microseconds < rhs.microseconds }

    /// RFC 3339 in UTC with microseconds: `2026-11-21T13:25:17.123456Z`.
    public var description: String { rfc3339 }

    public var rfc3339: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(27)
        ByteFormatting.appendRFC3339(self, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses RFC 3339 (`YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`); fractions beyond microseconds are cut.
    public init?(rfc3339 text: String) {
        var text = text
        guard let parsed = text.withUTF8({ Timestamp.parseRFC3339($0) }) else { return nil }
        self = parsed
    }

    /// The length of a time as exports write it: `2026-11-21T13:25:17.123456Z`.
    package static let exportedLength = 27

    package static func parseRFC3339(_ bytes: UnsafeRawBufferPointer) -> Timestamp? {
        parseRFC3339(bytes.assumingMemoryBound(to: UInt8.self))
    }

    package static func parseRFC3339(_ bytes: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        guard let base = bytes.baseAddress else { return nil }
        /// The `count` (at most 4) digits at `start`; unchecked loads after one bounds check, as
        /// imports read one time a line.
        func number(_ start: Int, _ count: Int) -> Int64? {
            guard start + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for index in start..<start + count {
                let digit = base[index] &- 48
                guard digit <= 9 else { return nil }
                value = value &* 10 &+ Int64(digit)
            }
            return value
        }
        guard bytes.count >= 20,
            let year = number(0, 4), bytes[4] == UInt8(ascii: "-"),
            let month = number(5, 2), bytes[7] == UInt8(ascii: "-"),
            let day = number(8, 2), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") || bytes[10] == UInt8(ascii: " "),
            let hour = number(11, 2), bytes[13] == UInt8(ascii: ":"),
            let minute = number(14, 2), bytes[16] == UInt8(ascii: ":"),
            let second = number(17, 2),
            (1...12).contains(month), day >= 1, day <= CivilDate.days(inMonth: month, year: year), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var micros: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                if digits < 6 { micros = micros * 10 + Int64(bytes[index] - 48) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 6) { micros *= 10 }
        }
        guard index < bytes.count else { return nil }
        var offsetSeconds: Int64 = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard let offsetHours = number(index + 1, 2), bytes.count > index + 3, bytes[index + 3] == UInt8(ascii: ":"),
                let offsetMinutes = number(index + 4, 2)
            else { return nil }
            offsetSeconds = (offsetHours * 3600 + offsetMinutes * 60) * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
            index += 6
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = CivilDate.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Timestamp(microseconds: seconds * 1_000_000 + micros)
    }
}

/// Howard Hinnant's days-from-civil algorithms: exact for every proleptic Gregorian date, no tables.
public enum CivilDate {
    /// How many days a month of the proleptic Gregorian calendar has (February: 28, or 29 in a leap year).
    public static func days(inMonth month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The proleptic Gregorian date `days` after 1970-01-01, by eras of 400 years from 0000-03-01.
    package static func from(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let adjustedYear = month <= 2 ? year - 1 : year
        let era = (adjustedYear >= 0 ? adjustedYear : adjustedYear - 399) / 400
        let yearOfEra = adjustedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// Where "now" comes from. Injected, so that tests and replays are deterministic.
public protocol WallClock {
    func now() -> Timestamp
}

/// The real time of day, from `clock_gettime(CLOCK_REALTIME)`.
public struct SystemClock: WallClock {
    public init() {}

    public func now() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(microseconds: Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000)
    }
}

/// A clock that starts at a fixed moment and advances by a fixed step on every reading.
public final class SteppingClock: WallClock {
    private var current: Timestamp
    private let step: Int64

    public init(start: Timestamp = Timestamp(microseconds: 1_798_761_600_000_000), stepMicroseconds: Int64 = 1_000_000) {
        self.current = start
        self.step = stepMicroseconds
    }

    public func now() -> Timestamp {
        defer { current.microseconds += step }
        return current
    }
}

/// Seconds on a clock that never jumps (`CLOCK_MONOTONIC`): for deadlines and intervals, never for
/// event times.
public enum MonotonicClock {
    public static func seconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1_000_000_000
    }
}

extension Duration {
    /// The whole duration in nanoseconds, for APIs that take a count (a semaphore's timeout, NIO's
    /// `TimeAmount`, a tracer's instants).
    public var nanosecondCount: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}
