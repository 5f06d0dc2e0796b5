/// Reads structured values off a fuzz input, so that libFuzzer's mutations steer choices (which
/// event kind, which field value) as well as bytes. An exhausted input reads as zeros: every input
/// means something, and short ones mean simple things.
package struct FuzzInput {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    package init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    package var isExhausted: Bool { offset >= bytes.count }

    package mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func bool() -> Bool { byte() & 1 == 1 }

    /// A number in `0..<count` (`count` at most 256 × 256).
    package mutating func index(_ count: Int) -> Int {
        precondition(count > 0 && count <= 65_536)
        let raw = count <= 256 ? Int(byte()) : Int(byte()) << 8 | Int(byte())
        return raw % count
    }

    package mutating func uint64() -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return value
    }

    /// The next `length`-prefixed run of bytes (a length byte, then up to that many bytes).
    package mutating func chunk() -> UnsafeRawBufferPointer {
        let length = min(Int(byte()), bytes.count - min(offset, bytes.count))
        defer { offset += length }
        return UnsafeRawBufferPointer(rebasing: bytes[min(offset, bytes.count)..<min(offset, bytes.count) + length])
    }

    /// Everything not read yet.
    package mutating func rest() -> UnsafeRawBufferPointer {
        defer { offset = bytes.count }
        return UnsafeRawBufferPointer(rebasing: bytes[min(offset, bytes.count)...])
    }
}
