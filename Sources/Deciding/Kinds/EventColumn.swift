/// A column of the flat CSV schema that holds an event field. Several kinds share a column (every
/// product id goes to `product_id`), so a column is declared once, beside the events that
/// introduce it, and each event field names its column.
///
/// Its texts are `StaticString`s, so a field that names its column costs nothing to make.
public struct EventColumn: Sendable, Hashable {
    public let name: StaticString
    /// The SQL type a warehouse should give the column.
    public let sqlType: StaticString
    public let meaning: StaticString
    /// Where the column stands among the event columns, after the envelope's.
    public let order: Int

    public init(_ name: StaticString, _ sqlType: StaticString, order: Int, _ meaning: StaticString) {
        self.name = name
        self.sqlType = sqlType
        self.meaning = meaning
        self.order = order
    }

    public static func == (lhs: EventColumn, rhs: EventColumn) -> Bool { lhs.order == rhs.order }
    public func hash(into hasher: inout Hasher) { hasher.combine(order) }
}
