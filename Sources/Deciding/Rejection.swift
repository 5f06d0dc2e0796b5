/// A stable answer code of docs/spec.md §2–4: what programs match on, its raw value part of the
/// command line's and the HTTP API's JSON contract.
///
/// Open rather than an enum: the log declares its own answers here (a command it cannot read, an
/// expected version that does not hold, a command id used for another command, an event the log's
/// schema cannot hold yet), and each domain declares the refusals of its rules beside them
/// (`extension RejectionCode { public static let cartNotOpen = … }`), so that a domain's codes
/// need no change to the log and the log's answers read the same under every domain.
public struct RejectionCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}

extension RejectionCode {
    /// A line that is no command: not JSON, a member of the wrong type, one that may not be there.
    public static let malformedCommand = RejectionCode(rawValue: "malformedCommand")
    /// A command type the domain does not declare.
    public static let unknownCommand = RejectionCode(rawValue: "unknownCommand")
    /// A stream, command or correlation id outside SPEC §1's identifiers.
    public static let invalidIdentifier = RejectionCode(rawValue: "invalidIdentifier")
    /// The command id was accepted before in the stream, for a different command.
    public static let idempotencyConflict = RejectionCode(rawValue: "idempotencyConflict")
    /// The stream's version is not the one the command expected.
    public static let versionConflict = RejectionCode(rawValue: "versionConflict")
    /// The command's event needs a version of its kind that the log's schema cannot hold until
    /// `flowlog upgrade` raises it.
    public static let logUpgradeRequired = RejectionCode(rawValue: "logUpgradeRequired")

    /// The log's own codes, the same under every domain; a domain lists its own beside them.
    public static let logCodes: [RejectionCode] = [
        .malformedCommand, .unknownCommand, .invalidIdentifier, .idempotencyConflict, .versionConflict, .logUpgradeRequired,
    ]
}

/// Why a command was refused: a stable code for programs and a sentence for a person that says
/// what was wrong and how to mend it. A rejected command appends nothing.
public struct Rejection: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: RejectionCode
    public let message: String

    public init(_ code: RejectionCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
