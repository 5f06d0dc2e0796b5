/// The ways a record is laid out (`RecordCodec`), and which one a log writes.
///
/// A log writes the layout of its log schema: 1 below schema 3, so that the builds that read those
/// schemas read every record; 2 from schema 3 on, which `flowlog forget` needs; from schema 5 on,
/// a record that carries a W3C trace context is in layout 4, the salted layout with the context in
/// its payload (first byte 4), and every other record stays in layout 2, byte for byte. `flowlog
/// upgrade` to schema 3 rewrites every record of an older log into layout 2 in the same transaction
/// that raises its schema; raising a log to 5 rewrites nothing.
public enum RecordLayout: UInt8, Sendable {
    /// The whole record chained: its payload cannot be dropped without breaking the chain.
    case whole = 1
    /// The chain covers a digest of the salted payload, which `forget` can drop.
    case salted = 2
    /// Salted, and a record written with a trace context keeps it in its payload, which `forget`
    /// drops with the rest.
    case traced = 4

    /// The first log schema whose records are salted.
    public static let saltedLogSchema = 3
    /// The first log schema whose records keep their trace context.
    public static let tracedLogSchema = 5

    public init(logSchema: Int) {
        self = logSchema >= Self.tracedLogSchema ? .traced : logSchema >= Self.saltedLogSchema ? .salted : .whole
    }

    /// Whether a record of this layout can be forgotten (layouts 2 and 4).
    public var isSalted: Bool { self != .whole }
}
