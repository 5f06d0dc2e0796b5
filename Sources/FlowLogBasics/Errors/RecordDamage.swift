public import Deciding

/// A record that cannot be trusted: where it is and what is wrong with it.
///
/// A record of a kind's version newer than this build knows is not damage: its checksum held, and a
/// later FlowLog reads it. It comes as a `RecordDamage` (reads stop there all the same) with
/// `unknownVersion` set, and every message says "upgrade FlowLog", never "damaged".
public struct RecordDamage: Error, Equatable, Sendable, CustomStringConvertible {
    public let position: Int
    public let stream: String?
    public let problem: String
    public let unknownVersion: UnknownEventVersion?
    /// Intact, but holding a value no event may hold (`FieldType.recordedRange`), which an earlier
    /// build's import stored unchecked: no reader folds it, and `verify` names it.
    public let outOfRange: RecordedValueOutOfRange?

    public init(
        position: Int, stream: String?, problem: String, unknownVersion: UnknownEventVersion? = nil,
        outOfRange: RecordedValueOutOfRange? = nil
    ) {
        self.position = position
        self.stream = stream
        self.problem = problem
        self.unknownVersion = unknownVersion
        self.outOfRange = outOfRange
    }

    /// Intact, but of a kind's version newer than this build knows.
    public var isNewerThanKnown: Bool { unknownVersion?.isNewer ?? false }

    public var description: String {
        let place = "The event at position \(position)\(stream.map { " (stream \($0))" } ?? "")"
        if isNewerThanKnown { return "\(place) was written by a newer FlowLog: \(problem)." }
        if outOfRange != nil { return "\(place) holds a value out of range: \(problem)." }
        return "\(place) is damaged: \(problem)."
    }
}
