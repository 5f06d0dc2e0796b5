import FlowLogSystem

/// The salts that records of layout 2 (`RecordLayout.salted`) carry (12 of the 16 bytes each take
/// gives; the rest seed an imported tombstone's chain hash), drawn from the kernel's cryptographic
/// random source 4,096 at a time (64 KB), so that an append pays one opening of `/dev/urandom`
/// per 4,096 records instead of one per record (at 256 a time, `send` opened it 400 times).
///
/// Why cryptographic: a forgotten record keeps only the digest of its salt and payload. Were the
/// salts a seeded sequence, the salts of the records around it (still readable) would give its own
/// away, and with it a way to test a guess of what was forgotten.
package struct RecordSalts {
    /// Empty until the first salt is taken: a writer of the whole layout never draws one.
    private var buffer: [UInt64] = []
    private var next = 0

    package init() {}

    package mutating func take() -> (UInt64, UInt64) {
        if next == buffer.count {
            if buffer.isEmpty { buffer = [UInt64](repeating: 0, count: 8_192) }
            buffer.withUnsafeMutableBytes(fillRandomly)
            next = 0
        }
        defer { next += 2 }
        return (buffer[next], buffer[next + 1])
    }
}
