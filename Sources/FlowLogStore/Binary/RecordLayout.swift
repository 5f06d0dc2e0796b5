/// The two ways a record is laid out (`RecordCodec`), and which one a log writes.
///
/// A log writes the layout of its log schema: 1 below schema 3, so that the builds that read those
/// schemas read every record; 2 from schema 3 on, which `flowlog forget` needs. A log holds one
/// layout only: `flowlog upgrade` to schema 3 rewrites every record of an older log into layout 2
/// in the same transaction that raises its schema.
public enum RecordLayout: UInt8, Sendable {
    /// The whole record chained: its payload cannot be dropped without breaking the chain.
    case whole = 1
    /// The chain covers a digest of the salted payload, which `forget` can drop.
    case salted = 2

    /// The first log schema whose records are salted.
    public static let saltedLogSchema = 3

    public init(logSchema: Int) {
        self = logSchema >= Self.saltedLogSchema ? .salted : .whole
    }
}
