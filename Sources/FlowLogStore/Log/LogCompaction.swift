/// What `flowlog compact` did to a log: its storage's size before and after. On LMDB the size of
/// `data.mdb`; on PostgreSQL the log's tables with their indexes and TOAST (`pg_total_relation_size`).
public struct LogCompaction: Equatable, Sendable {
    public let location: String
    public let bytesBefore: Int
    public let bytesAfter: Int

    public init(location: String, bytesBefore: Int, bytesAfter: Int) {
        (self.location, self.bytesBefore, self.bytesAfter) = (location, bytesBefore, bytesAfter)
    }
}
