/// Bytes gathered in one growing allocation, as a value: a copy shares the allocation until one of
/// them changes. Appending a small value to an `Array` cost about a hundred instructions of
/// uniqueness and capacity checks, and `SortedPuts` appends a key and a value for each of an
/// event's three puts. (`BinaryWriter`, which nothing copies, owns its bytes without this.)
public struct ByteBuffer {
    @usableFromInline var arena: ByteArena

    public init(capacity: Int = 0) {
        arena = ByteArena(capacity: capacity)
    }

    /// How many bytes were appended.
    @inlinable public var count: Int { arena.count }

    /// The bytes so far; valid until the next change.
    @inlinable public var bytes: UnsafeRawBufferPointer { arena.bytes }

    @inlinable @inline(__always)
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        makeUnique()
        arena.append(bytes)
    }

    /// Appends two runs of bytes (a key and its value), checking for a shared allocation once.
    @inlinable @inline(__always)
    public mutating func append(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) {
        makeUnique()
        arena.append(first)
        arena.append(second)
    }

    /// Makes room for `capacity` bytes in all, so that appending up to there never copies what is there.
    public mutating func reserveCapacity(_ capacity: Int) {
        makeUnique()
        if capacity > arena.capacity { arena.grow(toHold: capacity) }
    }

    /// Forgets the bytes; keeps the allocation unless a copy shares it.
    public mutating func removeAll() {
        if isKnownUniquelyReferenced(&arena) { arena.removeAll() } else { arena = ByteArena() }
    }

    @inlinable @inline(__always)
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&arena) { arena = arena.copy() }
    }
}

/// The allocation behind a `ByteBuffer`.
@usableFromInline
final class ByteArena {
    @usableFromInline
    struct State {
        @usableFromInline var base: UnsafeMutableRawPointer?
        @usableFromInline var length = 0
        @usableFromInline var capacity = 0
        @usableFromInline init() {}
    }

    /// Kept behind a pointer, not in stored properties: a class's stored `var`s pay a run-time
    /// exclusivity check on every access, which cost more than the copies themselves.
    @usableFromInline let state: UnsafeMutablePointer<State>

    @usableFromInline
    init(capacity: Int = 0) {
        state = .allocate(capacity: 1)
        state.initialize(to: State())
        if capacity > 0 { grow(toHold: capacity) }
    }

    deinit {
        state.pointee.base?.deallocate()
        state.deallocate()
    }

    /// How many bytes were appended.
    @inlinable var count: Int { state.pointee.length }

    /// How many bytes fit before the next growth.
    @usableFromInline var capacity: Int { state.pointee.capacity }

    /// The bytes so far; valid until the next change.
    @inlinable
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: state.pointee.base, count: state.pointee.length) }

    /// Allocates on the first call even for no bytes, so that `bytes` has an address once
    /// anything was appended.
    @inlinable @inline(__always)
    func append(_ bytes: UnsafeRawBufferPointer) {
        let length = state.pointee.length
        if state.pointee.base == nil || length + bytes.count > state.pointee.capacity { grow(toHold: length + bytes.count) }
        if let source = bytes.baseAddress { (state.pointee.base! + length).copyMemory(from: source, byteCount: bytes.count) }
        state.pointee.length = length + bytes.count
    }

    /// Forgets the bytes and keeps the allocation.
    @usableFromInline
    func removeAll() { state.pointee.length = 0 }

    @usableFromInline
    func copy() -> ByteArena {
        let copy = ByteArena(capacity: state.pointee.capacity)
        copy.append(bytes)
        return copy
    }

    @usableFromInline
    func grow(toHold needed: Int) {
        var newCapacity = max(state.pointee.capacity * 2, 256)
        while newCapacity < needed { newCapacity *= 2 }
        let grown = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        if let base = state.pointee.base {
            grown.copyMemory(from: base, byteCount: state.pointee.length)
            base.deallocate()
        }
        state.pointee.base = grown
        state.pointee.capacity = newCapacity
    }
}
