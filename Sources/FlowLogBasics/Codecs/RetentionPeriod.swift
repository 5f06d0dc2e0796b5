/// How long a session is kept after its last event (`flowlog retain --older-than 90d`, `--set 90d`):
/// a whole number of hours, days or weeks, written `12h`, `90d`, `2w`.
///
/// A bare number is refused rather than read in some default unit: "retain 90" could mean 90 days
/// or 90 hours, and guessing wrong forgets sessions for good. Months and years are not offered:
/// their length varies, and a retention that forgets on a different day depending on the calendar
/// is harder to state to a data protection officer than "90 days".
public struct RetentionPeriod: Equatable, Hashable, Sendable, CustomStringConvertible {
    public enum Unit: String, CaseIterable, Sendable {
        case hours = "h"
        case days = "d"
        case weeks = "w"

        var microseconds: Int64 {
            switch self {
            case .hours: 3_600_000_000
            case .days: 86_400_000_000
            case .weeks: 604_800_000_000
            }
        }

        var name: String {
            switch self {
            case .hours: "hours"
            case .days: "days"
            case .weeks: "weeks"
            }
        }
    }

    public let count: Int
    public let unit: Unit

    /// The units, for messages: `h (hours), d (days) or w (weeks)`.
    public static let unitsText = "h (hours), d (days) or w (weeks)"

    public init(count: Int, unit: Unit) {
        (self.count, self.unit) = (count, unit)
    }

    /// Parses `90d`, `12h`, `2w`; `nil` for anything else (a bare number included). The count is
    /// 1 or more and at most 100 years' worth, so that the cutoff never overflows.
    public init?(_ text: String) {
        guard let last = text.last, let unit = Unit(rawValue: String(last)), let count = Int(text.dropLast()),
            count >= 1, Int64(count) <= 36_525 * Unit.days.microseconds / unit.microseconds
        else { return nil }
        self.init(count: count, unit: unit)
    }

    /// Why `text` is not a period, naming the units: the usage error of `--older-than` and `--set`.
    public static func refusal(of text: String, option: String) -> String {
        if let number = Int(text) {
            return "\(option) takes a number and a unit, \(unitsText), such as 90d; '\(text)' has no unit (did you mean \(number)d?)."
        }
        if let last = text.last, let unit = Unit(rawValue: String(last)), !text.dropLast().isEmpty,
            text.dropLast().utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), Int(text.dropLast()).map({ $0 >= 1 }) ?? true
        {
            let most = 36_525 * Unit.days.microseconds / unit.microseconds
            return "\(option) takes at most 100 years' worth (\(most)\(unit.rawValue)); got '\(text)'. Give a shorter period, such as 90d."
        }
        return "\(option) takes a whole number of at least 1 and a unit, \(unitsText), such as 90d or 12h; got '\(text)'."
    }

    public var description: String { "\(count)\(unit.rawValue)" }

    /// `90 days`, for sentences.
    public var spelledOut: String { "\(count) \(count == 1 ? String(unit.name.dropLast()) : unit.name)" }

    public var microseconds: Int64 { Int64(count) * unit.microseconds }

    /// The moment before which a session's last event makes it old, `now` minus the period: a
    /// session is old when its last event is strictly earlier.
    public func cutoff(now: Timestamp) -> Timestamp {
        Timestamp(microseconds: now.microseconds - microseconds)
    }
}
