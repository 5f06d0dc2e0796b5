import FlowDomain

/// The flat, warehouse-friendly CSV schema: one row per event, snake_case columns, money in integer
/// cents, every event field in a typed column of its own (empty where the event has no such field).
public enum CSVSchema {
    public struct Column: Sendable {
        public let name: String
        /// The SQL type a warehouse should give the column.
        public let type: String
        public let meaning: String
    }

    public static let columns: [Column] = [
        Column(name: "message_id", type: "UUID", meaning: "the event id (unique; use it to deduplicate)"),
        Column(name: "event", type: "VARCHAR", meaning: "the event type, such as cart.productAdded"),
        Column(name: "stream", type: "VARCHAR", meaning: "the stream (one session) the event belongs to"),
        Column(name: "position", type: "BIGINT", meaning: "global position, 1-based, contiguous across the log"),
        Column(name: "version", type: "BIGINT", meaning: "version within the stream, 1-based, contiguous"),
        Column(name: "actor", type: "VARCHAR", meaning: "user or system"),
        Column(name: "timestamp", type: "TIMESTAMP", meaning: "when it was recorded, RFC 3339 in UTC, microseconds"),
        Column(name: "correlation_id", type: "VARCHAR", meaning: "the correlation id, where set"),
        Column(name: "causation_id", type: "VARCHAR", meaning: "the id of the command that caused it, where set"),
        Column(name: "schema_version", type: "INTEGER", meaning: "the storage schema the event was written with"),
        Column(name: "product_id", type: "VARCHAR", meaning: "productAdded, productRemoved, discountApplied (product discounts)"),
        Column(name: "name", type: "VARCHAR", meaning: "productAdded: the product's name"),
        Column(name: "unit_price", type: "BIGINT", meaning: "productAdded: unit price in cents"),
        Column(name: "quantity", type: "INTEGER", meaning: "productAdded: quantity added; productRemoved: quantity removed"),
        Column(name: "discount_id", type: "VARCHAR", meaning: "discountApplied, discountRemoved"),
        Column(name: "percent", type: "INTEGER", meaning: "discountApplied: whole percent"),
        Column(name: "order_id", type: "VARCHAR", meaning: "orderPlaced"),
        Column(name: "total", type: "BIGINT", meaning: "checkoutStarted, orderPlaced: cart total in cents"),
        Column(name: "item_count", type: "INTEGER", meaning: "checkoutStarted, orderPlaced: the sum of quantities"),
        Column(name: "reason", type: "VARCHAR", meaning: "paymentFailed: the provider's reason"),
        Column(name: "has_onboarded", type: "BOOLEAN", meaning: "app.launched: as the app reported it"),
        Column(name: "tab", type: "INTEGER", meaning: "home.tabSelected"),
    ]

    /// The column list, as `flowlog export --format csv --schema` prints it.
    public static var description: String {
        let width = columns.map(\.name.count).max()!
        return columns.map { column in
            column.name + String(repeating: " ", count: width - column.name.count + 2) + column.type
                + String(repeating: " ", count: 11 - column.type.count) + column.meaning
        }.joined(separator: "\n")
    }
}

/// Writes events as CSV rows with RFC 4180 quoting (a field with a comma, a quote, CR or LF is quoted,
/// quotes doubled) and `\n` line ends.
struct CSVRowWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    mutating func writeHeader() {
        bytes.append(contentsOf: CSVSchema.columns.map(\.name).joined(separator: ",").utf8)
        bytes.append(0x0A)
    }

    mutating func write(_ record: RecordedEvent) {
        ByteFormatting.appendUUID(record.eventId, to: &bytes)
        comma(); text(record.event.typeName)
        comma(); text(record.stream)
        comma(); int(record.position)
        comma(); int(record.version)
        comma(); text(record.actor.rawValue)
        comma(); ByteFormatting.appendRFC3339(record.timestamp, to: &bytes)
        comma(); text(record.correlationId)
        comma(); text(record.causationId)
        comma(); int(record.schemaVersion)
        var productId: String?, name: String?, unitPrice: Int?, quantity: Int?, discountId: String?, percent: Int?
        var orderId: String?, total: Int?, itemCount: Int?, reason: String?, hasOnboarded: Bool?, tab: Int?
        switch record.event {
        case .cart(.productAdded(let p, let n, let u, let q)): (productId, name, unitPrice, quantity) = (p, n, u, q)
        case .cart(.productRemoved(let p, let q)): (productId, quantity) = (p, q)
        case .cart(.discountApplied(let d, let pc, let p)): (discountId, percent, productId) = (d, pc, p)
        case .cart(.discountRemoved(let d)): discountId = d
        case .cart(.checkoutStarted(let t, let c)): (total, itemCount) = (t, c)
        case .cart(.orderPlaced(let o, let t, let c)): (orderId, total, itemCount) = (o, t, c)
        case .cart(.paymentFailed(let r)): reason = r
        case .navigation(.appLaunched(let h)): hasOnboarded = h
        case .navigation(.tabSelected(let t)): tab = t
        case .navigation: break
        }
        comma(); text(productId)
        comma(); text(name)
        comma(); int(unitPrice)
        comma(); int(quantity)
        comma(); text(discountId)
        comma(); int(percent)
        comma(); text(orderId)
        comma(); int(total)
        comma(); int(itemCount)
        comma(); text(reason)
        comma(); if let hasOnboarded { bytes.append(contentsOf: hasOnboarded ? Array("true".utf8) : Array("false".utf8)) }
        comma(); int(tab)
        bytes.append(0x0A)
    }

    @inline(__always)
    private mutating func comma() { bytes.append(UInt8(ascii: ",")) }

    private mutating func int(_ value: Int?) {
        guard let value else { return }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude == 0 { bytes.append(UInt8(ascii: "0")); return }
        let start = bytes.count
        while magnitude > 0 {
            bytes.append(UInt8(magnitude % 10) + 48)
            magnitude /= 10
        }
        bytes[start...].reverse()
    }

    private mutating func text(_ value: String?) {
        guard let value else { return }
        let utf8 = value.utf8
        let needsQuotes = utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
            || utf8.first == UInt8(ascii: " ") || utf8.last == UInt8(ascii: " ") || utf8.isEmpty
        guard needsQuotes else { bytes.append(contentsOf: utf8); return }
        bytes.append(UInt8(ascii: "\""))
        for byte in utf8 {
            if byte == UInt8(ascii: "\"") { bytes.append(byte) }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
