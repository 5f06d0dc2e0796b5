/// Text for a terminal. Whatever a user or another program put into a log (a product name, a
/// payment failure reason, a path, a shell command) reaches people through the text renderers and
/// diagnostics; characters a terminal acts on instead of showing are shown as visible escapes, the
/// way Swift writes them in a string literal: `\n`, `\r`, `\t`, and `\u{1B}`, `\u{202E}` for the rest.
///
/// Escaped: C0 controls (U+0000–U+001F), DEL (U+007F), C1 controls (U+0080–U+009F), the bidi
/// controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the line and paragraph
/// separators (U+2028, U+2029). Everything else, backslashes included, is shown as it is, so text
/// without such characters is unchanged, and escaping twice changes nothing. JSON output needs none
/// of this: it is for programs, and its strings round-trip exactly.
enum TerminalText {
    static func escaped(_ text: String, keepingLineFeeds: Bool = false) -> String {
        var text = text
        return text.withUTF8 { utf8 in
            guard firstEscaped(in: utf8, keepingLineFeeds: keepingLineFeeds) != nil else { return String(decoding: utf8, as: UTF8.self) }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(utf8.count + 16)
            appendEscaping(utf8, to: &bytes, keepingLineFeeds: keepingLineFeeds)
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Appends `text`, escaped, to `bytes`; text with nothing to escape is copied in one go.
    static func append(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            if firstEscaped(in: utf8, keepingLineFeeds: false) == nil {
                bytes.append(contentsOf: utf8)
            } else {
                appendEscaping(utf8, to: &bytes, keepingLineFeeds: false)
            }
        }
    }

    private static func firstEscaped(in utf8: UnsafeBufferPointer<UInt8>, keepingLineFeeds: Bool) -> Int? {
        var index = 0
        while index < utf8.count {
            if escapedLength(utf8, at: index, keepingLineFeeds: keepingLineFeeds) > 0 { return index }
            index += 1
        }
        return nil
    }

    private static func appendEscaping(_ utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8], keepingLineFeeds: Bool) {
        var index = 0
        var runStart = 0
        while index < utf8.count {
            let length = escapedLength(utf8, at: index, keepingLineFeeds: keepingLineFeeds)
            guard length > 0 else {
                index += 1
                continue
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            let scalar: UInt32 =
                switch length {
                case 1: UInt32(utf8[index])
                case 2: UInt32(utf8[index] & 0x1F) << 6 | UInt32(utf8[index + 1] & 0x3F)
                default: UInt32(utf8[index] & 0x0F) << 12 | UInt32(utf8[index + 1] & 0x3F) << 6 | UInt32(utf8[index + 2] & 0x3F)
                }
            bytes.append(contentsOf: escape(scalar).utf8)
            index += length
            runStart = index
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
    }

    /// The length in UTF-8 bytes of the escaped character at `index`, or 0 when it is shown as it is.
    @inline(__always)
    private static func escapedLength(_ utf8: UnsafeBufferPointer<UInt8>, at index: Int, keepingLineFeeds: Bool) -> Int {
        let byte = utf8[index]
        if byte < 0x20 || byte == 0x7F { return keepingLineFeeds && byte == 0x0A ? 0 : 1 }
        guard byte == 0xC2 || byte == 0xD8 || byte == 0xE2, index + 1 < utf8.count else { return 0 }
        let second = utf8[index + 1]
        switch byte {
        case 0xC2: return second <= 0x9F ? 2 : 0  // U+0080–U+009F
        case 0xD8: return second == 0x9C ? 2 : 0  // U+061C
        default:
            guard index + 2 < utf8.count else { return 0 }
            let third = utf8[index + 2]
            if second == 0x80, third == 0x8E || third == 0x8F || (0xA8...0xAE).contains(third) { return 3 }  // U+200E, U+200F, U+2028–U+202E
            if second == 0x81, (0xA6...0xA9).contains(third) { return 3 }  // U+2066–U+2069
            return 0
        }
    }

    private static func escape(_ scalar: UInt32) -> String {
        switch scalar {
        case 0x0A: "\\n"
        case 0x0D: "\\r"
        case 0x09: "\\t"
        default: "\\u{" + String(scalar, radix: 16, uppercase: true) + "}"
        }
    }
}
