/// The identifier rule of SPEC §1: 1 to 64 characters of `A-Z a-z 0-9 . _ : -`.
///
/// Stream, product, discount, order, command and correlation ids all follow it, so that they can be
/// used as LMDB key parts, file names and CSV cells without escaping.
public enum Identifier: FieldTypeRules {
    public static let maximumLength = 64

    /// The rejection for an identifier that breaks SPEC §1's rule; `role` names it for the reader.
    public static var name: String { "identifier" }
    public static var checkOrder: Int { 0 }

    public static func refusal(ofText id: String, role: String) -> Rejection {
        let shown = id.count > 80 ? String(id.prefix(80)) + "…" : id
        return Rejection(.invalidIdentifier, "The \(role) \"\(shown)\" is not a valid identifier; use 1 to 64 characters of A-Z a-z 0-9 . _ : -")
    }

    public static func allows(_ text: String) -> Bool { isValid(text) }

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
public enum FreeText: FieldTypeRules {
    public static let maximumLength = 200

    public static func isValid(_ text: String) -> Bool {
        text.unicodeScalars.count <= maximumLength
    }

    public static func allows(_ text: String) -> Bool { isValid(text) }

    public static var name: String { "text" }
    public static var checkOrder: Int { 5 }

    public static func refusal(ofText text: String, role: String) -> Rejection {
        Rejection(.invalidText, "The \(role) is \(text.unicodeScalars.count) characters long; shorten it to at most \(maximumLength).")
    }
}

extension RejectionCode {
    /// Free text longer than `FreeText.maximumLength`.
    public static let invalidText = RejectionCode(rawValue: "invalidText")
}
