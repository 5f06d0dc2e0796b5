/// The streams the log keeps for itself. Their ids start with `flowlog:`, which no command may name
/// (`SystemStreams.isReserved`), so a session can never write into them.
public enum SystemStreams {
    /// Each erasure's audit event (`SystemEvent.streamForgotten`).
    public static let erasures = "flowlog:erasures"
    public static let reservedPrefix = "flowlog:"

    /// Asked of every record an export or a tracker reads: the first byte settles nearly all.
    @inlinable
    public static func isReserved(_ stream: String) -> Bool {
        stream.utf8.first == UInt8(ascii: "f") && stream.hasPrefix(reservedPrefix)
    }
}
