import FlowLogBasics
import FlowLogStore

/// Damage the fuzz input does to a record's bytes: bytes changed, the record cut short or grown,
/// and, when the input asks, the chain hash made to match again, so that the decoder gets past its
/// checksum and reads fields that were never written that way.
enum RecordEdits {
    static func apply(_ input: inout FuzzInput, to bytes: inout [UInt8], previousHash: UInt64, position: Int) {
        let edits = Int(input.byte() % 8)
        for _ in 0..<edits {
            switch input.byte() % 4 {
            case 0, 1:
                guard !bytes.isEmpty else { continue }
                bytes[input.index(min(bytes.count, 65_536))] ^= input.byte() | 1
            case 2:
                bytes.removeLast(min(bytes.count, Int(input.byte() % 16)))
            default:
                let at = bytes.isEmpty ? 0 : input.index(min(bytes.count, 65_536))
                bytes.insert(contentsOf: Array(input.chunk()), at: at)
            }
        }
        if input.bool() { reseal(&bytes, previousHash: previousHash, position: position) }
    }

    /// Rewrites the trailing chain hash (and a forgotten record's check) to match the bytes before
    /// it, as the writer of `bytes[0]`'s layout would have.
    static func reseal(_ bytes: inout [UInt8], previousHash: UInt64, position: Int) {
        guard bytes.count > RecordCodec.trailerSize else { return }
        let bodyEnd = bytes.count - RecordCodec.trailerSize
        let seed = bytes[0] == RecordLayout.whole.rawValue ? previousHash : RecordCodec.seed(previousHash, position: position)
        let hash = bytes.withUnsafeBytes { XXHash64.hash(UnsafeRawBufferPointer(rebasing: $0[..<bodyEnd]), seed: seed) }
        withUnsafeBytes(of: hash.littleEndian) { bytes.replaceSubrange(bodyEnd..., with: $0) }
    }
}
