public import Deciding
public import FlowLogBasics
public import FlowLogStore

/// The answers to commands, as `send`, the typed commands and `POST /commands` write them.
extension FlowJSON {
    /// `{"ok":true,"stream":…,"positions":[…],"version":…}` or `{"ok":false,"stream":…,"error":{…}}`.
    public static func writeAnswer(_ outcome: CommandOutcome, into json: inout JSONWriter) {
        switch outcome {
        case .accepted(let acceptance):
            writeAcceptance(acceptance, into: &json)
        case .rejected(let stream, let rejection):
            json.beginObject()
            writeRejection(stream: stream, rejection, into: &json)
            json.endObject()
        }
    }

    /// `{"ok":true,"stream":…,"positions":[…],"version":…}`, built on the stack (`LineBuffer`) and
    /// appended in one copy: `send` writes one for nearly every line, and member by member they
    /// took a tenth of its main thread. A stream that needs escaping (never an identifier) or an
    /// answer too long for the buffer is written member by member.
    static func writeAcceptance(_ acceptance: Acceptance, into json: inout JSONWriter) {
        let written = json.appendBuiltOnStack(capacity: 256) { line in
            line.raw(#"{"ok":true,"stream":""#)
            guard line.plain(acceptance.stream) else { return false }
            line.raw(#"","positions":["#)
            let receipt = acceptance.receipt
            for position in receipt.firstPosition..<receipt.firstPosition + receipt.eventCount {
                if position != receipt.firstPosition { line.raw(",") }
                line.int(position)
            }
            line.raw(#"],"version":"#)
            line.int(receipt.version)
            if acceptance.duplicate { line.raw(#","duplicate":true"#) }
            line.raw("}")
            return true
        }
        if !written { writeAcceptanceByMembers(acceptance, into: &json) }
    }

    /// The same answer member by member, escaping as any string is escaped: the general form,
    /// which the test of the stack's form compares with.
    static func writeAcceptanceByMembers(_ acceptance: Acceptance, into json: inout JSONWriter) {
        json.beginObject()
        json.key("ok")
        json.bool(true)
        json.key("stream")
        json.string(acceptance.stream)
        json.key("positions")
        json.beginArray()
        let receipt = acceptance.receipt
        for position in receipt.firstPosition..<receipt.firstPosition + receipt.eventCount { json.int(position) }
        json.endArray()
        json.key("version")
        json.int(receipt.version)
        if acceptance.duplicate {
            json.key("duplicate")
            json.bool(true)
        }
        json.endObject()
    }

    /// The members of a rejected answer; `stream` is `null` for a line whose stream could not be read.
    public static func writeRejection(stream: String?, _ rejection: Rejection, into json: inout JSONWriter) {
        json.key("ok")
        json.bool(false)
        json.key("stream")
        json.string(stream)
        json.key("error")
        json.beginObject()
        json.key("code")
        json.string(rejection.code.rawValue)
        json.key("message")
        json.string(rejection.message)
        json.endObject()
    }

    public static func answer(_ outcome: CommandOutcome) -> String {
        var json = JSONWriter()
        writeAnswer(outcome, into: &json)
        return json.text
    }
}
