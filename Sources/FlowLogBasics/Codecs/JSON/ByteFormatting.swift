/// Formatting of envelope values straight into byte buffers: exports write millions of them, and going
/// through `String` for each would cost more than everything else an export does.
package enum ByteFormatting {
    /// Appends `value` in decimal, zero-padded to `width` digits.
    @inline(__always)
    package static func appendDigits(_ value: Int64, width: Int, to bytes: inout [UInt8]) {
        var digits = width
        var divisor: Int64 = 1
        while digits > 1 {
            divisor *= 10
            digits -= 1
        }
        var remaining = value
        while divisor > 0 {
            bytes.append(UInt8(truncatingIfNeeded: remaining / divisor) + 48)
            remaining %= divisor
            divisor /= 10
        }
    }

    /// `2026-11-21T13:25:17.123456Z`, as `Timestamp.rfc3339`.
    package static func appendRFC3339(_ timestamp: Timestamp, to bytes: inout [UInt8]) {
        var (seconds, micros) = timestamp.microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        if micros < 0 {
            seconds -= 1
            micros += 1_000_000
        }
        var (days, secondOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
        if secondOfDay < 0 {
            days -= 1
            secondOfDay += 86_400
        }
        let (year, month, day) = CivilDate.from(daysSinceEpoch: days)
        if (0...9999).contains(year) {
            appendDigits(year, width: 4, to: &bytes)
        } else {
            // A stored timestamp is 64 bits, which a damaged or forged record can fill beyond RFC 3339's
            // four-digit years: written signed and whole (ISO 8601's expanded years), never trapped on.
            bytes.append(year < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            let magnitude = Int64(year.magnitude)
            appendDigits(magnitude, width: max(4, String(magnitude).count), to: &bytes)
        }
        bytes.append(UInt8(ascii: "-"))
        appendDigits(month, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(day, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        appendDigits(secondOfDay / 3600, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 3600 / 60, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 60, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        appendDigits(micros, width: 6, to: &bytes)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// The canonical 36-character form of an event id, built on the stack and appended in one go.
    package static func appendUUID(_ id: EventID, to bytes: inout [UInt8]) {
        var text: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &text) { buffer in
            var out = 0
            for nibble in 0..<32 {
                if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                    buffer[out] = UInt8(ascii: "-")
                    out += 1
                }
                let word = nibble < 16 ? id.high : id.low
                buffer[out] = hexDigit(Int((word >> UInt64(60 - (nibble % 16) * 4)) & 0xF))
                out += 1
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<36]))
        }
    }

    @inline(__always)
    private static func hexDigit(_ value: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: value < 10 ? 48 + value : 87 + value)
    }
}

extension JSONWriter {
    /// A timestamp as an RFC 3339 string value.
    public mutating func timestamp(_ value: Timestamp) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        ByteFormatting.appendRFC3339(value, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// An event id as a UUID string value.
    public mutating func eventID(_ value: EventID) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        ByteFormatting.appendUUID(value, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }
}
