import Deciding

/// What an order history that dropped its older orders (`OrderHistory.keepOnlyLatest(rememberingIds:)`)
/// still knows of their ids: an 8-byte hash of each, so that the `duplicateOrder` check can tell
/// that an order id is new without the orders themselves.
///
/// A hash that is absent proves the id new; one that is present may be a collision, so the caller
/// fetches the whole history before it decides (`FlowDecider.needsKeptRows`). The hash is FNV-1a
/// over the id's UTF-8 bytes: the same in every process, and no randomness in the domain.
///
/// Up to `sortedFrom` hashes are kept in the order they came and searched one by one; more are
/// sorted and bisected. A session's history is mostly tens of orders, slimmed once each time a
/// writer loads it, and asked about once a payment: sorting each (a merge sort) cost far more
/// than the few scans it would save, where a scan of tens costs about as much as one hash.
struct DroppedOrderIds: Sendable {
    private var hashes: [UInt64] = []
    /// Whether `hashes` is sorted (it is once it holds `sortedFrom` or more).
    private var sorted = true

    static let sortedFrom = 256

    init() {}

    init(hashes: [UInt64]) {
        self.hashes = hashes
        sorted = hashes.count >= Self.sortedFrom
        if sorted { self.hashes.sort() }
    }

    func mayContain(_ orderId: String) -> Bool {
        let hash = Self.hash(orderId)
        guard sorted else { return hashes.contains(hash) }
        var (low, high) = (0, hashes.count)
        while low < high {
            let middle = (low + high) / 2
            if hashes[middle] < hash { low = middle + 1 } else { high = middle }
        }
        return low < hashes.count && hashes[low] == hash
    }

    /// By index, into room made once: a lazy map's append went through the generic sequence copy,
    /// and a send into the 10M-event log slims thousands of 70-order histories.
    mutating func insert(_ orders: ArraySlice<Order>) {
        hashes.reserveCapacity(hashes.count + orders.count)
        for index in orders.indices { hashes.append(Self.hash(orders[index].orderId)) }
        sorted = hashes.count >= Self.sortedFrom
        if sorted { hashes.sort() }
    }

    static func hash(_ id: String) -> UInt64 {
        var id = id
        return id.withUTF8 { hash(utf8: UnsafeRawBufferPointer($0)) }
    }

    static func hash(utf8: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}
