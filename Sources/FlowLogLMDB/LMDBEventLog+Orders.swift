import FlowDomain
import FlowLog
import LMDB

extension LMDBEventLog {
    func recordOrder(_ order: Order, number: Int, stream: String, version: Int, _ txn: Transaction) throws {
        var value = BinaryWriter(capacity: 64)
        value.write(UInt64(version))
        StateCodec.encode(order: order, into: &value)
        try txn.put(ordersDB, key: Keys.streamVersion(stream, number), value: value.bytes)
        if number % Self.ordersPerPage == 0 {
            try writeOrderPage(number / Self.ordersPerPage, of: stream, txn)
        }
    }

    /// Orders per order page: about 27 KB, a run of seven contiguous pages of the map.
    static let ordersPerPage = 1_024

    /// Copies page `page` of a stream's orders from the order index, where its last order just went.
    func writeOrderPage(_ page: Int, of stream: String, _ txn: Transaction) throws {
        guard let orderPagesDB else { return }
        let first = (page - 1) * Self.ordersPerPage + 1
        let prefix = Keys.streamPrefix(stream)
        var value = BinaryWriter(capacity: Self.ordersPerPage * 32)
        let complete = try txn.withCursor(ordersDB) { cursor in
            var entry = try cursor.seek(atOrAfter: Keys.streamVersion(stream, first))
            var number = first
            while number < first + Self.ordersPerPage, let (key, stored) = entry, key.starts(with: prefix),
                  Keys.decodeNumber(key) == number, stored.count > 8 {
                // The order as the index encodes it, without the version in front.
                value.write(bytes: UnsafeRawBufferPointer(rebasing: stored[8...]))
                number += 1
                entry = try cursor.next()
            }
            return number == first + Self.ordersPerPage
        }
        // An index with a gap gets no page; readers fall back to the index, which reports the gap.
        guard complete else { return }
        value.writeChecksum()
        try txn.put(orderPagesDB, key: Keys.streamVersion(stream, page), value: value.bytes)
    }

    /// How many orders the order index holds for a stream.
    func orderCount(of stream: String, _ txn: Transaction) throws -> Int {
        try txn.withCursor(ordersDB) { cursor in
            let prefix = Keys.streamPrefix(stream)
            let entry = try cursor.seek(atOrAfter: prefix + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
            guard let (key, _) = entry == nil ? try cursor.last() : try cursor.previous(), key.starts(with: prefix) else { return 0 }
            return Keys.decodeNumber(key)
        }
    }

    /// A stream's first `count` orders: whole order pages first, then the rest from the order index.
    /// `room`: how many more the fold after it may add (a head is followed by at most 15 events, a
    /// snapshot by hundreds), so that adding them does not copy the history.
    func orders(of stream: String, count: Int, room: Int = 64, _ txn: Transaction) throws -> [Order]? {
        guard count > 0 else { return [] }
        var orders: [Order] = []
        orders.reserveCapacity(count + room)
        try readOrderPages(of: stream, upTo: count, into: &orders, txn)
        let prefix = Keys.streamPrefix(stream)
        return try txn.withCursor(ordersDB) { cursor in
            var entry = try cursor.seek(atOrAfter: Keys.streamVersion(stream, orders.count + 1))
            while orders.count < count, let (key, value) = entry, key.starts(with: prefix), value.count > 8,
                  let order = StateCodec.decodeOrder(UnsafeRawBufferPointer(rebasing: value[8...])) {
                orders.append(order)
                entry = try cursor.next()
            }
            return orders.count == count ? orders : nil
        }
    }

    /// Appends the stream's order pages from page 1 while they lie within its first `count` orders,
    /// stopping at the first page that is missing (a log older than order pages) or damaged.
    func readOrderPages(of stream: String, upTo count: Int, into orders: inout [Order], _ txn: Transaction) throws {
        guard let orderPagesDB, count >= Self.ordersPerPage else { return }
        let prefix = Keys.streamPrefix(stream)
        try txn.withCursor(orderPagesDB) { cursor in
            var entry = try cursor.seek(atOrAfter: Keys.streamVersion(stream, 1))
            var page = 1
            while page * Self.ordersPerPage <= count, let (key, value) = entry, key.starts(with: prefix), Keys.decodeNumber(key) == page,
                  StateCodec.appendOrders(fromPage: value, count: Self.ordersPerPage, to: &orders) {
                page += 1
                entry = try cursor.next()
            }
        }
    }

    /// The latest intact snapshot of `stream` written by today's reducers at or before `throughPosition`.
}
