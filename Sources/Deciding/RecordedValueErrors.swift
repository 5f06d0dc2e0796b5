/// A record or line of a kind's version that this build does not know: newer than its own (written
/// by a later FlowLog), or one that never existed.
public struct UnknownEventVersion: Error, Equatable, Sendable, CustomStringConvertible {
    public let typeName: String
    public let version: Int
    /// The newest version this build knows.
    public let known: Int

    public init(typeName: String, version: Int, known: Int) {
        (self.typeName, self.version, self.known) = (typeName, version, known)
    }

    public var isNewer: Bool { version > known }

    public var description: String {
        isNewer
            ? "it holds \(typeName) version \(version), newer than this FlowLog knows (version \(known)); upgrade FlowLog to read it"
            : "it holds \(typeName) version \(version), which no FlowLog wrote (versions 1 through \(known))"
    }
}

/// A recorded event's field holding a value its type does not allow: an integer outside the
/// type's recorded range, which an earlier build's import stored unchecked, a hand-edited export or
/// a device's bad event wrote. Every reader refuses it, naming the field and the value as written,
/// never clamps it. The domain's field types say what is allowed and word the `explanation`; the
/// log only carries the refusal.
public struct RecordedValueOutOfRange: Error, Equatable, Sendable, CustomStringConvertible {
    public let field: String
    /// The value as it was written (digits beyond 64 bits included), cut at 40 characters.
    public let value: String
    /// Whether the sentence quotes the value (text) or shows it as written (a number).
    public let quotesValue: Bool
    /// What the type allows, as the end of the sentence: "out of range (invalidPrice): a recorded
    /// cents is … through …".
    public let explanation: String

    public init(field: String, value: String, quotesValue: Bool, explanation: String) {
        self.field = field
        self.value = value.count > 40 ? String(value.prefix(40)) + "…" : value
        self.quotesValue = quotesValue
        self.explanation = explanation
    }

    public var description: String {
        "\"\(field)\" is \(quotesValue ? "\"\(value)\"" : value), \(explanation)"
    }
}
