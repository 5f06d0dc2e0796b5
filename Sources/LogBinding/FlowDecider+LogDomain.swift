import Deciding
public import FlowDomain
public import FlowLogBasics
public import FlowLogDomain

/// The shop's states and orders as bytes (`LogDomain`), for snapshots, heads and the order index,
/// and their fingerprints, for checking that a replay with today's reducers still means what the
/// log meant when it was written.
extension FlowDecider: LogDomain {
    static let formatVersion: UInt8 = 1
    /// The layout of a state whose cart is in a currency other than USD: the first layout, and the
    /// cart's currency after it. A state in USD (every state before currencies) keeps the first
    /// layout, so its snapshots and fingerprints stay what they were.
    static let currencyFormatVersion: UInt8 = 2
    /// Marks an order in another currency than USD: the currency follows, then the order. No order
    /// id starts with it (a short string's length byte is at most 64 for an identifier).
    static let orderCurrencyMark: UInt8 = 0xFF

    private static func format(of state: FlowState) -> UInt8 {
        guard let currency = state.cart.currency, currency != Money.currencyOfEarlierCarts else { return formatVersion }
        return currencyFormatVersion
    }

    /// The whole state. With `withoutKeptRows`, only the number of orders is written: snapshots keep
    /// orders in the log's order index instead, so a stream with many orders does not copy them all
    /// into every snapshot.
    public static func encode(_ state: FlowState, withoutKeptRows withoutOrders: Bool, into writer: inout BinaryWriter) {
        writer.reset()
        writer.write(format(of: state))
        encodeCartAndNavigation(state, into: &writer)
        writer.write(int: state.orders.count)
        if !withoutOrders {
            precondition(state.orders.droppedCount == 0, "a state whose orders were dropped is encoded with its orders")
            for order in state.orders.orders { encode(order, into: &writer) }
        }
    }

    /// Reads what `encode(_:withoutKeptRows: true, …)` wrote: the state without its orders, and how many there were.
    public static func decodeStateWithoutKeptRows(_ bytes: UnsafeRawBufferPointer) -> (state: FlowState, keptRowCount: Int)? {
        var reader = BinaryReader(bytes)
        guard let state = try? decodeCartAndNavigation(&reader), let count = try? reader.readInt(), count >= 0, reader.remaining == 0 else {
            return nil
        }
        return (state, count)
    }

    /// A state holding its latest order only (`OrderHistory.keepOnlyLatest()`, as an import into a
    /// log with an order index folds it): the state without its orders, their number, then the latest.
    public static func encode(keepingLatestKeptRow state: FlowState, into writer: inout BinaryWriter) {
        encode(state, withoutKeptRows: true, into: &writer)
        if let latest = state.orders.orders.last { encode(latest, into: &writer) }
    }

    /// Reads what `encode(keepingLatestKeptRow:into:)` wrote.
    public static func decodeStateKeepingLatestKeptRow(_ bytes: UnsafeRawBufferPointer) -> FlowState? {
        var reader = BinaryReader(bytes)
        guard var state = try? decodeCartAndNavigation(&reader), let count = try? reader.readInt(), count >= 0 else { return nil }
        if count > 0 {
            guard let latest = (try? readKeptRow(&reader)) ?? nil else { return nil }
            state.orders = OrderHistory(latest: latest, droppedCount: count - 1, droppedIdHashes: [])
        }
        return reader.remaining == 0 ? state : nil
    }

    public static func encode(keptRow order: Order, into writer: inout BinaryWriter) { encode(order, into: &writer) }

    /// One order's fields as `encode(_:into:)` wrote them, read in place: its currency's bytes
    /// (`nil` for the first carts' currency), its id's, its total and item count; `nil` for an
    /// empty id or currency, which no order has.
    @inline(__always)
    private static func orderFields(_ reader: inout BinaryReader, allowingEmptyId: Bool = false) throws(BinaryReader.OutOfBounds)
        -> (currency: UnsafeRawBufferPointer?, id: UnsafeRawBufferPointer, total: Int, itemCount: Int)?
    {
        var currency: UnsafeRawBufferPointer?
        if try reader.peekByte() == orderCurrencyMark {
            _ = try reader.readByte()
            guard let code = try reader.readShortBytes() else { return nil }
            currency = code
        }
        guard let id = try reader.readShortBytes() ?? (allowingEmptyId ? UnsafeRawBufferPointer(start: nil, count: 0) : nil) else { return nil }
        let total = try reader.readInt()
        let itemCount = try reader.readInt()
        guard FieldType.cents.recordedRange!.contains(total), FieldType.integer.recordedRange!.contains(itemCount) else { return nil }
        return (currency, id, total, itemCount)
    }

    /// One order as `encode(_:into:)` wrote it; `nil` for an empty id, which no order has.
    public static func readKeptRow(_ reader: inout BinaryReader, allowingEmptyKey allowingEmptyId: Bool = false) throws(BinaryReader.OutOfBounds)
        -> Order?
    {
        // Bytes that are not UTF-8 are damage: repaired, they could outgrow a short string when the
        // order is written again.
        guard let fields = try orderFields(&reader, allowingEmptyId: allowingEmptyId), let id = String(validating: fields.id, as: UTF8.self) else {
            return nil
        }
        let currency = fields.currency.map { String(validating: $0, as: UTF8.self) } ?? Money.currencyOfEarlierCarts
        guard let currency else { return nil }
        return Order(orderId: id, total: fields.total, itemCount: fields.itemCount, currency: currency)
    }

    /// Steps over one order as `readKeptRow` reads it, and gives its id's bytes without making an
    /// order of them; `nil` for an empty id.
    public static func readKeptRowKey(_ reader: inout BinaryReader) throws(BinaryReader.OutOfBounds) -> UnsafeRawBufferPointer? {
        try orderFields(&reader)?.id
    }

    public static func decodeState(_ bytes: UnsafeRawBufferPointer) -> FlowState? {
        var reader = BinaryReader(bytes)
        do {
            var state = try decodeCartAndNavigation(&reader)
            let orderCount = try reader.readInt()
            guard orderCount >= 0 else { return nil }
            var orders: [Order] = []
            // An order takes at least 18 bytes: a count from damaged bytes reserves no more than they can hold.
            orders.reserveCapacity(min(orderCount, reader.remaining / 18))
            for _ in 0..<orderCount {
                guard let order = try readKeptRow(&reader) else { return nil }
                orders.append(order)
            }
            state.orders = OrderHistory(orders: orders)
            return reader.remaining == 0 ? state : nil
        } catch {
            return nil
        }
    }

    private struct Malformed: Error {}

    /// A value a fold of recorded events can hold (`FieldType.recordedRange`): a state that holds
    /// another came from no such fold (an earlier build's unchecked import), so it is passed over
    /// like a damaged one, and the events answer instead, naming the one out of range.
    @inline(__always)
    private static func recorded(_ value: Int, _ type: FieldType) throws -> Int {
        guard type.recordedRange?.contains(value) ?? true else { throw Malformed() }
        return value
    }

    private static func decodeCartAndNavigation(_ reader: inout BinaryReader) throws -> FlowState {
        do {
            let format = try reader.readByte()
            guard format == formatVersion || format == currencyFormatVersion else { throw Malformed() }
            var state = FlowState()
            state.cart.status = try reader.readByte() == 0 ? .open : .checkingOut
            let lineCount = try reader.readInt()
            guard (0...Cart.maximumLines).contains(lineCount) else { throw Malformed() }
            for _ in 0..<lineCount {
                guard let productId = try reader.readShortString() else { throw Malformed() }
                let name = try reader.readString()
                let unitPrice = try recorded(try reader.readInt(), .cents)
                // A line of any fold holds at least 1; its quantity is a sum, so it has no upper bound.
                let quantity = try reader.readInt()
                guard quantity >= 1 else { throw Malformed() }
                state.cart.lines.append(
                    CartLine(
                        productId: productId, name: name, unitPrice: unitPrice, quantity: quantity,
                        discount: try decodeDiscount(&reader)))
            }
            state.cart.cartDiscount = try decodeDiscount(&reader)
            state.navigation.launched = try reader.readByte() != 0
            let stackCount = Int(try reader.readByte())
            for _ in 0..<stackCount {
                let index = Int(try reader.readByte())
                guard index < screens.count else { throw Malformed() }
                state.navigation.stack.append(screens[index])
            }
            state.navigation.isModalPresented = try reader.readByte() != 0
            state.navigation.hasOnboarded = try reader.readByte() != 0
            state.navigation.tab = try recorded(try reader.readInt(), .tab)
            if format == currencyFormatVersion {
                guard let currency = try reader.readShortString() else { throw Malformed() }
                state.cart.currency = currency
            } else if !state.cart.lines.isEmpty {
                state.cart.currency = Money.currencyOfEarlierCarts
            }
            return state
        } catch {
            throw Malformed()
        }
    }

    /// A 64-bit digest of the state after an event. Orders only ever grow, so the count and the last
    /// order stand in for all of them: a replay whose orders differ differs first at the event that
    /// placed the differing order, where the last order differs. That keeps the digest O(cart), not
    /// O(orders), on every append.
    public static func fingerprint(_ state: FlowState, scratch writer: inout BinaryWriter) -> UInt64 {
        fingerprint(state, lastKeptRow: state.orders.orders.last, scratch: &writer)
    }

    /// The fingerprint of `state` were its last order `lastOrder`: what a repair compares with a
    /// recorded fingerprint, without copying the state's orders.
    public static func fingerprint(_ state: FlowState, lastKeptRow lastOrder: Order?, scratch writer: inout BinaryWriter) -> UInt64 {
        writer.reset()
        writer.write(format(of: state))
        encodeCartAndNavigation(state, into: &writer)
        writer.write(int: state.orders.count)
        if let lastOrder { encode(lastOrder, into: &writer) }
        return writer.withUnsafeBytes { XXHash64.hash($0) }
    }

    /// Screens are stored by their place in the declaration. Read once: `allCases` builds a new
    /// array on every use, and a fingerprint after every event asked it for each screen.
    private static let screens = Screen.allCases

    private static func encodeCartAndNavigation(_ state: FlowState, into writer: inout BinaryWriter) {
        writer.write(state.cart.status == .open ? UInt8(0) : UInt8(1))
        writer.write(int: state.cart.lines.count)
        for line in state.cart.lines {
            writer.writeShortString(line.productId)
            writer.writeString(line.name)
            writer.write(int: line.unitPrice)
            writer.write(int: line.quantity)
            encode(line.discount, into: &writer)
        }
        encode(state.cart.cartDiscount, into: &writer)
        let navigation = state.navigation
        writer.write(navigation.launched ? UInt8(1) : UInt8(0))
        writer.write(UInt8(truncatingIfNeeded: navigation.stack.count))
        for screen in navigation.stack { writer.write(UInt8(screens.firstIndex(of: screen)!)) }
        writer.write(navigation.isModalPresented ? UInt8(1) : UInt8(0))
        writer.write(navigation.hasOnboarded ? UInt8(1) : UInt8(0))
        writer.write(int: navigation.tab)
        if format(of: state) == currencyFormatVersion { writer.writeShortString(state.cart.currency) }
    }

    private static func encode(_ order: Order, into writer: inout BinaryWriter) {
        if order.currency != Money.currencyOfEarlierCarts {
            writer.write(orderCurrencyMark)
            writer.writeShortString(order.currency)
        }
        writer.writeShortString(order.orderId)
        writer.write(int: order.total)
        writer.write(int: order.itemCount)
    }

    /// 0: none; 1: a percent (as every state before fixed amounts, so their snapshots and
    /// fingerprints stay as they were); 2: a fixed amount off; 3: both, the amount then the percent,
    /// which no rule makes but a recorded event may hold (the `discounts-valid` invariant names it):
    /// kept as 2, the percent was lost, and a state read back from a snapshot differed from its fold.
    private static func encode(_ discount: Discount?, into writer: inout BinaryWriter) {
        guard let discount else {
            writer.write(UInt8(0))
            return
        }
        let both = discount.amountOff > 0 && discount.percent != 0
        writer.write(both ? UInt8(3) : discount.amountOff > 0 ? UInt8(2) : UInt8(1))
        writer.writeShortString(discount.id)
        writer.write(int: discount.amountOff > 0 ? discount.amountOff : discount.percent)
        if both { writer.write(int: discount.percent) }
    }

    private static func decodeDiscount(_ reader: inout BinaryReader) throws -> Discount? {
        let kind = try reader.readByte()
        guard kind != 0 else { return nil }
        guard kind <= 3 else { throw Malformed() }
        guard let id = try reader.readShortString() else { return nil }
        let value = try recorded(try reader.readInt(), kind >= 2 ? .amount : .percent)
        if kind == 3 { return Discount(id: id, percent: try recorded(try reader.readInt(), .percent), amountOff: value) }
        return kind == 2 ? Discount(id: id, percent: 0, amountOff: value) : Discount(id: id, percent: value)
    }
}

/// What earlier FlowLogs got wrong in the orders they kept beside the events, so that a repair can
/// tell it apart from anything else: their order index took an order from the `orderPlaced` event
/// alone, in USD whatever its cart's currency. A state loaded through a head or a snapshot then
/// had its orders in USD, and the fingerprints of the events decided against it recorded the last
/// order so.
extension FlowDecider {
    /// The state with its last order in USD; `nil` where that is the state's own fingerprint (no
    /// order, or the last one in USD), so nothing can be told apart.
    public static func misrecordedFingerprint(of state: FlowState, scratch writer: inout BinaryWriter) -> UInt64? {
        guard var last = state.orders.orders.last, last.currency != Money.currencyOfEarlierCarts else { return nil }
        last.currency = Money.currencyOfEarlierCarts
        return fingerprint(state, lastKeptRow: last, scratch: &writer)
    }
}

/// What a writer's cache needs to keep the shop's states well (`LogDomain`): their costs, and
/// their orders dropped or indexed.
extension FlowDecider {
    /// Orders from which a loaded state's order ids are indexed: a shorter history is scanned
    /// faster than its ids are hashed, and without a set to keep.
    static let indexedOrders = 256

    public static func decisionContext(defaultCurrency: String) -> DecisionContext { DecisionContext(defaultCurrency: defaultCurrency) }

    /// Indexes a long history's order ids, for the `duplicateOrder` check.
    public static func readyForDeciding(_ state: inout FlowState) {
        if state.orders.orders.count >= indexedOrders { state.orders.indexIds() }
    }

    /// Its fixed part with its share of the cache's tables, the room of its cart lines and of its
    /// orders, and each order's id in the index when the history is long enough to have one, and
    /// the hashes of dropped ids. Measured against the allocator: a session with ten cart lines and
    /// its latest order holds about 1,600 bytes, and this says 1,656 (with 8 bytes for each
    /// dropped order besides).
    public static func estimatedCost(of state: FlowState) -> Int {
        let orders = state.orders.orders
        return 320 + state.cart.lines.capacity * MemoryLayout<CartLine>.stride + orders.capacity * (MemoryLayout<Order>.stride + 8)
            + state.navigation.stack.capacity + (orders.count >= indexedOrders ? orders.count * 64 : 0)
            + state.orders.droppedCount * 8
    }

    /// Such a history's duplicate-order check answers for its latest order only, so it is never
    /// decided against (`StreamState.keepOnlyLatestKeptRow`).
    public static func keepOnlyLatestKeptRow(_ state: inout FlowState) { state.orders.keepOnlyLatest() }

    /// The dropped orders' id hashes stay, so that only a payment whose id they cannot rule out
    /// reloads the stream.
    public static func slimForCache(_ state: inout FlowState) { state.orders.keepOnlyLatest(rememberingIds: true) }
}
