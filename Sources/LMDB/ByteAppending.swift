extension Array where Element == UInt8 {
    /// Appends raw bytes in one copy. `append(contentsOf:)` given an `UnsafeRawBufferPointer` goes
    /// byte by byte, since a raw buffer offers no typed contiguous storage: that loop was a tenth of
    /// an import's instructions (keys and values gathered for sorted puts, records being encoded).
    @inlinable
    public mutating func append(bytes raw: UnsafeRawBufferPointer) {
        guard let base = raw.baseAddress else { return }
        append(contentsOf: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: raw.count))
    }
}
