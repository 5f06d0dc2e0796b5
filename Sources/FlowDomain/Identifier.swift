/// The identifier rule of SPEC §1: 1 to 64 characters of `A-Z a-z 0-9 . _ : -`.
///
/// Stream, product, discount, order, command and correlation ids all follow it, so that they can be
/// used as LMDB key parts, file names and CSV cells without escaping.
public enum Identifier {
    public static let maximumLength = 64

    public static func isValid(_ candidate: String) -> Bool {
        let utf8 = candidate.utf8
        guard !utf8.isEmpty, utf8.count <= maximumLength else { return false }
        return utf8.allSatisfy(isAllowed)
    }

    /// Whether one byte may appear in an identifier.
    @inline(__always)
    public static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
             UInt8(ascii: ":"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}

/// Free text (a product name, a payment failure reason) is bounded so that one event stays small.
/// The bound counts Unicode scalars, which is what most tools call "characters" in JSON text.
public enum FreeText {
    public static let maximumLength = 200

    public static func isValid(_ text: String) -> Bool {
        text.unicodeScalars.count <= maximumLength
    }
}
