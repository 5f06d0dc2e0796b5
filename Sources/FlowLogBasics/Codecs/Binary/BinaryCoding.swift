/// Appends little-endian fixed-width values and length-prefixed UTF-8 to a byte buffer.
///
/// Public and inlinable, unlike most of this module: the record codecs, the domains' state
/// codecs and the backends read and write through it in other modules, and a `package` function
/// is not inlined across modules, however it is marked (each fixed-width read became a call).
///
/// Noncopyable, and the sole owner of its one allocation: appending is a capacity check and a
/// store. (As a copy-on-write value, each append also asked the runtime whether the buffer was
/// shared, which showed in an import's preparing thread; a writer is
/// scratch space that nothing ever needed to copy.)
public struct BinaryWriter: ~Copyable {
    @usableFromInline var base: UnsafeMutableRawPointer
    @usableFromInline var length = 0
    @usableFromInline var capacity: Int

    @inlinable
    public init(capacity: Int = 128) {
        self.capacity = max(capacity, 16)
        base = .allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { base.deallocate() }

    /// A copy of what was written, for callers off the hot paths (which use `withUnsafeBytes`).
    @inlinable
    public var bytes: [UInt8] { Array(UnsafeRawBufferPointer(start: base, count: length)) }

    @inlinable
    public var count: Int { length }

    /// What was written, without copying it; valid inside `body` only.
    @inlinable
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: length))
    }

    @inlinable
    public mutating func reset() { length = 0 }

    @inline(__always)
    @inlinable mutating func makeRoom(for extra: Int) {
        if length + extra > capacity { grow(toHold: length + extra) }
    }

    @usableFromInline
    mutating func grow(toHold needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let grown = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        grown.copyMemory(from: base, byteCount: length)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }

    @inline(__always)
    @inlinable
    public mutating func write(bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        makeRoom(for: bytes.count)
        (base + length).copyMemory(from: source, byteCount: bytes.count)
        length += bytes.count
    }

    @inline(__always)
    @inlinable mutating func append<Value: BitwiseCopyable>(_ value: Value) {
        makeRoom(for: MemoryLayout<Value>.size)
        base.storeBytes(of: value, toByteOffset: length, as: Value.self)
        length += MemoryLayout<Value>.size
    }

    @inline(__always)
    @inlinable
    public mutating func write(_ value: UInt8) { append(value) }

    @inline(__always)
    @inlinable
    public mutating func write(_ value: UInt16) { append(value.littleEndian) }

    /// Replaces two bytes written earlier, at `offset`, with `value` (little-endian).
    @inlinable
    public mutating func overwrite(_ value: UInt16, at offset: Int) {
        precondition(offset + 2 <= length)
        (base + offset).storeBytes(of: value.littleEndian, as: UInt16.self)
    }

    @inlinable
    public mutating func overwrite(_ value: UInt64, at offset: Int) {
        precondition(offset + 8 <= length)
        (base + offset).storeBytes(of: value.littleEndian, toByteOffset: 0, as: UInt64.self)
    }

    @inline(__always)
    @inlinable
    public mutating func write(_ value: UInt32) { append(value.littleEndian) }

    @inline(__always)
    @inlinable
    public mutating func write(_ value: UInt64) { append(value.littleEndian) }

    /// Ends a stored value with the xxHash64 of everything written before it (snapshots, order
    /// pages); `verifiedBody(of:)` reads it back.
    public mutating func writeChecksum() { write(withUnsafeBytes { XXHash64.hash($0) }) }

    /// The 8-byte little-endian hash that ends `value` (a checksum `writeChecksum` wrote, a record's
    /// chain hash), or `nil` when `value` is shorter than one.
    @inlinable
    public static func trailingHash(of value: UnsafeRawBufferPointer) -> UInt64? {
        guard value.count >= 8 else { return nil }
        return UInt64(littleEndian: value.loadUnaligned(fromByteOffset: value.count - 8, as: UInt64.self))
    }

    /// The bytes before a value's trailing checksum (as `writeChecksum` wrote it), or `nil` when the
    /// checksum does not match them.
    public static func verifiedBody(of value: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard let stored = trailingHash(of: value) else { return nil }
        let body = UnsafeRawBufferPointer(rebasing: value[0..<value.count - 8])
        return XXHash64.hash(body) == stored ? body : nil
    }

    @inline(__always)
    @inlinable
    public mutating func write(_ value: Int64) { write(UInt64(bitPattern: value)) }

    @inline(__always)
    @inlinable
    public mutating func write(int value: Int) { write(Int64(value)) }

    /// A string of at most 255 UTF-8 bytes (identifiers); an absent one is written as length 0,
    /// which is unambiguous because identifiers are never empty.
    @inlinable
    public mutating func writeShortString(_ value: String?) {
        guard let value else {
            write(UInt8(0))
            return
        }
        withUTF8(of: value) { writer, utf8 in
            precondition(utf8.count <= 255, "short strings are identifiers of at most 64 bytes")
            writer.write(UInt8(utf8.count))
            writer.write(bytes: utf8)
        }
    }

    /// A string of at most 65,535 UTF-8 bytes (free text such as names and reasons).
    @inlinable
    public mutating func writeString(_ value: String) {
        withUTF8(of: value) { writer, utf8 in
            precondition(utf8.count <= Int(UInt16.max), "free text is bounded well below 64 KiB")
            writer.write(UInt16(utf8.count))
            writer.write(bytes: utf8)
        }
    }

    /// A string's UTF-8 without copying the string (native strings, small or not, always have
    /// contiguous UTF-8; a bridged one is copied).
    @inline(__always)
    @inlinable mutating func withUTF8(of value: String, _ body: (inout BinaryWriter, UnsafeRawBufferPointer) -> Void) {
        let done: Void? = value.utf8.withContiguousStorageIfAvailable { body(&self, UnsafeRawBufferPointer($0)) }
        if done == nil {
            var copy = value
            copy.withUTF8 { body(&self, UnsafeRawBufferPointer($0)) }
        }
    }
}

/// Reads what `BinaryWriter` wrote, checking bounds on every read so that a damaged record is
/// reported as damaged rather than read past its end.
public struct BinaryReader {
    public struct OutOfBounds: Error { @inlinable public init() {} }

    public let bytes: UnsafeRawBufferPointer
    public var offset = 0

    @inlinable
    public init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    @inlinable
    public var remaining: Int { bytes.count - offset }

    @inline(__always)
    @inlinable
    public mutating func readByte() throws(OutOfBounds) -> UInt8 {
        guard offset < bytes.count else { throw OutOfBounds() }
        defer { offset += 1 }
        return bytes[offset]
    }

    @inline(__always)
    @inlinable
    public mutating func readUInt16() throws(OutOfBounds) -> UInt16 {
        guard offset + 2 <= bytes.count else { throw OutOfBounds() }
        defer { offset += 2 }
        return UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    @inline(__always)
    @inlinable
    public mutating func readUInt64() throws(OutOfBounds) -> UInt64 {
        guard offset + 8 <= bytes.count else { throw OutOfBounds() }
        defer { offset += 8 }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always)
    @inlinable
    public mutating func readInt64() throws(OutOfBounds) -> Int64 { Int64(bitPattern: try readUInt64()) }

    @inline(__always)
    @inlinable
    public mutating func readInt() throws(OutOfBounds) -> Int { Int(try readInt64()) }

    /// The next byte, left to be read.
    @inlinable
    public func peekByte() throws(OutOfBounds) -> UInt8 {
        var copy = self
        return try copy.readByte()
    }

    @inlinable
    public mutating func readShortString() throws(OutOfBounds) -> String? {
        let count = Int(try readByte())
        if count == 0 { return nil }
        return try readUTF8(count: count)
    }

    /// `readShortString`'s bytes, in place, without making a string of them.
    @inlinable
    public mutating func readShortBytes() throws(OutOfBounds) -> UnsafeRawBufferPointer? {
        let count = Int(try readByte())
        if count == 0 { return nil }
        guard offset + count <= bytes.count else { throw OutOfBounds() }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    @inlinable
    public mutating func readString() throws(OutOfBounds) -> String {
        try readUTF8(count: Int(try readUInt16()))
    }

    /// Refuses bytes that are not UTF-8, as damage: repaired, each bad byte would become three, and a
    /// string read back could no longer be written again (`upgrade`, a head) within its length.
    @inlinable
    mutating func readUTF8(count: Int) throws(OutOfBounds) -> String {
        guard offset + count <= bytes.count else { throw OutOfBounds() }
        let utf8 = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
        guard UTF8Check.isWellFormed(utf8) else { throw OutOfBounds() }
        offset += count
        // Well-formed, so decoding repairs nothing: the same string `String(validating:)` makes.
        // One that fits in a small string (15 bytes) is copied into one, which the standard
        // library validates no further when it is ASCII: most identifiers and names are both,
        // and decoding them cost more than the rest of reading their record.
        guard count <= 15 else { return String(decoding: utf8, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: count) { buffer in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: utf8)
            return count
        }
    }
}

/// Whether bytes are well-formed UTF-8 (Unicode's table 3-7: no overlong forms, no surrogates,
/// nothing past U+10FFFF), exactly what `String(validating:as:)` accepts.
///
/// Its own code because the standard library's validation is generic over the encoding and, not
/// specialised for UTF-8, asked the runtime for type metadata on every string: a record's few short
/// strings cost `replay --summary` more than half again its time. ASCII, which nearly every
/// identifier and name is, is eight bytes a step.
public enum UTF8Check {
    @inline(__always)
    @inlinable
    public static func isWellFormed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        // The high bit of every byte, read in words that may overlap but never leave the bytes.
        let high: UInt64
        if count >= 8 {
            var index = 0
            var gathered: UInt64 = 0
            while index &+ 8 < count {
                gathered |= base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                index &+= 8
            }
            high = gathered | base.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
        } else if count >= 4 {
            high = UInt64(base.loadUnaligned(as: UInt32.self) | base.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self))
        } else if count >= 2 {
            high = UInt64(base.loadUnaligned(as: UInt16.self) | base.loadUnaligned(fromByteOffset: count &- 2, as: UInt16.self))
        } else if count == 1 {
            high = UInt64(base.load(as: UInt8.self))
        } else {
            return true
        }
        return high & 0x8080_8080_8080_8080 == 0 || isWellFormedBeyondASCII(bytes)
    }

    /// One scalar at a time, for text that is not all ASCII.
    @inline(never)
    public static func isWellFormedBeyondASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        var index = 0
        @inline(__always) func continuation(_ offset: Int) -> Bool { bytes[index + offset] & 0xC0 == 0x80 }
        while index < count {
            let lead = bytes[index]
            switch lead {
            case 0x00...0x7F:
                index += 1
            case 0xC2...0xDF:
                guard index + 1 < count, continuation(1) else { return false }
                index += 2
            case 0xE0...0xEF:
                guard index + 2 < count, continuation(2) else { return false }
                let second = bytes[index + 1]
                switch lead {
                case 0xE0: guard second >= 0xA0, second <= 0xBF else { return false }
                case 0xED: guard second >= 0x80, second <= 0x9F else { return false }
                default: guard second & 0xC0 == 0x80 else { return false }
                }
                index += 3
            case 0xF0...0xF4:
                guard index + 3 < count, continuation(2), continuation(3) else { return false }
                let second = bytes[index + 1]
                switch lead {
                case 0xF0: guard second >= 0x90, second <= 0xBF else { return false }
                case 0xF4: guard second >= 0x80, second <= 0x8F else { return false }
                default: guard second & 0xC0 == 0x80 else { return false }
                }
                index += 4
            default:
                return false
            }
        }
        return true
    }
}
