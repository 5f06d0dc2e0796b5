/// A typed column the domain asks storage to keep in a read-model table, for analysts to query
/// with SQL. The storage read model keeps each stream's state and each kept row; which of their
/// facts become columns (and which are personal, blanked when a stream is forgotten) is the
/// domain's to say, so storage writes the table without knowing a cart.
public struct ReadModelColumn<Row>: Sendable {
    public enum Value: Equatable, Sendable, CustomStringConvertible {
        case text(String)
        /// A 64-bit integer (`bigint`).
        case bigint(Int)
        /// A 32-bit integer (`integer`).
        case integer(Int)
        case boolean(Bool)

        public var description: String {
            switch self {
            case .text(let text): text
            case .bigint(let value), .integer(let value): String(value)
            case .boolean(let value): String(value)
            }
        }
    }

    public enum ValueType: Sendable { case text, bigint, integer, boolean }

    /// The column's name, as analysts' queries name it: never renamed.
    public let name: StaticString
    public let type: ValueType
    /// Blanked (`''`) when the row's stream is forgotten: it may name the person.
    public let isPersonal: Bool
    public let value: @Sendable (Row) -> Value

    public init(_ name: StaticString, _ type: ValueType, personal: Bool = false, _ value: @escaping @Sendable (Row) -> Value) {
        (self.name, self.type, self.isPersonal, self.value) = (name, type, personal, value)
    }
}
