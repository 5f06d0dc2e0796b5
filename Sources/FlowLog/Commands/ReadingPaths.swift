package import FlowLogBasics
package import FlowLogStore

/// The fast and general paths of the readers that have two, each on its own, for the package's fuzz
/// targets: a fast path may only answer what the general one answers, and comparing them on every
/// input is how that is held. The readers themselves keep their paths internal; callers take
/// `WireCommand.decode` and `RecordedEventJSON.decode`, which choose.
package enum ReadingPaths {
    /// The command line's fast reader: `nil` whenever the general reader must judge the line.
    package static func commandCommonForm(_ line: UnsafeRawBufferPointer) -> CommandEnvelope? {
        WireCommand.decodeCommonForm(line)
    }

    /// The command line's general reader, through a JSON tree: every form, every rejection worded.
    package static func commandGenerally(_ line: UnsafeRawBufferPointer) -> Result<CommandEnvelope, WireRejection> {
        WireCommand.decodeGenerally(line)
    }

    /// The export line's fast reader (the layout the export writes): `nil` for anything else.
    package static func exportLineCanonical(_ line: UnsafeRawBufferPointer) -> RecordedEvent? {
        RecordedEventJSON.canonical(line)
    }

    /// The export line's general reader: any order, whitespace, `null`s and unknown members.
    package static func exportLineGenerally(_ line: UnsafeRawBufferPointer) -> Result<RecordedEvent, any Error> {
        Result { try RecordedEventJSON.general(line) }
    }
}

extension ReadingPaths {
    /// The pull scanner's reading of a whole text as one value (how the export reader reads `data`
    /// and unknown members): it skips the value, then parses what it skipped.
    package static func jsonValueByScanner(_ text: UnsafeRawBufferPointer) -> Result<JSONValue, JSONSyntaxError> {
        var scanner = JSONScanner(text)
        return Result { () throws(JSONSyntaxError) -> JSONValue in
            let value = try scanner.value()
            guard scanner.atEnd() else { throw scanner.error("unexpected text after the JSON value") }
            return value
        }
    }
}

extension ReadingPaths {
    /// The lexer's fast integer at the start of `text`, and where it stopped; `nil` where it
    /// leaves the text to `numberByLexer`.
    package static func integerByLexer(_ text: UnsafeRawBufferPointer) -> (value: Int, end: Int)? {
        var lexer = JSONLexer(text)
        return lexer.integer().map { ($0, lexer.offset) }
    }

    /// The lexer's full number at the start of `text` (as the tree holds it), and where it
    /// stopped; `nil` when `text` does not start with `-` or a digit.
    package static func numberByLexer(_ text: UnsafeRawBufferPointer) -> Result<(value: JSONValue, end: Int), JSONSyntaxError>? {
        guard let first = text.first, first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return nil }
        var lexer = JSONLexer(text)
        return Result { () throws(JSONSyntaxError) in (try lexer.number(), lexer.offset) }
    }
}
