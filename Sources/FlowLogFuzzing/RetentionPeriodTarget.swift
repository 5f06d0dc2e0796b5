import FlowLogBasics
import FlowLogStore

/// Retention periods (`retain --older-than`, `--set`, a log's stored setting): the input is the text.
/// A period read is written back (`description`) as text that reads as the same period, and its
/// cutoff from any time a clock gives (years 1970 to 9999) is computed without overflow; text that
/// is no period gets its refusal worded.
enum RetentionPeriodTarget {
    static let target = FuzzTarget(
        name: "retention-period",
        checks:
            "a retention period's text: read or refused with words, never a trap; a period read is written back as text that reads the same, and its cutoff never overflows",
        run: run
    )

    /// 9999-12-31T23:59:59.999999Z: the latest time a clock or an RFC 3339 text gives.
    private static let latest: Int64 = 253_402_300_799_999_999

    @Sendable static func run(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let period = RetentionPeriod(text) else {
            _ = RetentionPeriod.refusal(of: text, option: "--older-than")
            return
        }
        fuzzCheck(RetentionPeriod(period.description) == period, "\(text) read as \(period), whose text reads otherwise")
        _ = period.spelledOut
        var now = FuzzInput(bytes)
        let cutoff = period.cutoff(now: Timestamp(microseconds: Int64(now.uint64() % UInt64(latest))))
        fuzzCheck(cutoff.microseconds < latest, "the cutoff of \(period) is \(cutoff)")
    }
}
