/// The identifier rule of SPEC §1: 1 to 64 characters of `A-Z a-z 0-9 . _ : -`.
///
/// Stream, product, discount, order, command and correlation ids all follow it, so that they can be
/// used as LMDB key parts, file names and CSV cells without escaping.
public enum Identifier {
    public static let maximumLength = 64

    public static func isValid(_ candidate: String) -> Bool {
        let utf8 = candidate.utf8
        guard !utf8.isEmpty, utf8.count <= maximumLength else { return false }
        // The bytes in place where the string has them (every native string): `send` checks each
        // command's stream and ids, and the view's iterator cost more than the check.
        return utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isAllowed) } ?? utf8.allSatisfy(isAllowed)
    }

    /// Whether one byte may appear in an identifier: a bit for each allowed byte, in two 64-bit masks
    /// (`- . 0-9 :` below 64; `A-Z _ a-z` from 64 to 127). Inlinable, because imports check every
    /// byte of every id with it. `IdentifierTests` compares it with the rule byte by byte.
    @inlinable @inline(__always)
    public static func isAllowed(_ byte: UInt8) -> Bool {
        let below64: UInt64 = 0x07FF_6000_0000_0000
        let from64: UInt64 = 0x07FF_FFFE_87FF_FFFE
        return byte < 64 ? (below64 >> UInt64(byte)) & 1 == 1 : byte < 128 && (from64 >> UInt64(byte - 64)) & 1 == 1
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
