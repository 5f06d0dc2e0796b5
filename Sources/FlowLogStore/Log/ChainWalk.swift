package import FlowLogBasics

/// The walk every backend's `verify` makes over its records in position order: positions 1, 2, 3…
/// without a gap, and each record sealed by the hash of the one before (`RecordCodec`). The
/// backends read their records their own way (an LMDB cursor, pages of PostgreSQL rows) and check
/// their own indexes beside; the chain is checked here, once.
package struct ChainWalk {
    private var previousHash = RecordCodec.genesisHash
    private var expected = 1

    package init() {}

    /// The problem with the positions up to `position`, if the walk did not expect it next: the
    /// position the problem is reported at and what it is. Call once per record, in walk order.
    @inline(__always) package mutating func gap(before position: Int) -> (position: Int, detail: String)? {
        defer { expected = position + 1 }
        guard position != expected else { return nil }
        let detail = position > expected ? "missing (positions \(expected)…\(position - 1) are not in the log)" : "out of order"
        return (expected, detail)
    }

    /// The positions missing after the last record met, up to `end`, the log's last position as its
    /// head says (a log whose newest records were lost). Call after the walk.
    package func gap(through end: Int) -> (position: Int, detail: String)? {
        expected <= end ? (expected, "missing (positions \(expected)…\(end) are not in the log)") : nil
    }

    /// Decodes the record at `position` into `event`, checking it against the chain; the damage, if
    /// the record is not what was written. The walk goes on from the hash a damaged record stored,
    /// so that one bad record is reported once, not with every record after it.
    @inline(__always) package mutating func decode(_ bytes: UnsafeRawBufferPointer, at position: Int, into event: inout RecordedEvent)
        -> RecordDamage?
    {
        do {
            previousHash = try RecordCodec.decode(bytes, expectedPosition: position, previousHash: previousHash, into: &event)
            return nil
        } catch {
            previousHash = RecordCodec.storedHash(of: bytes) ?? previousHash
            return error
        }
    }
}
