import FlowDomain
public import FlowLogBasics

/// A value of an analytics call's properties or parameters. The mapping builds these, pure, and
/// only the message writers turn them into JSON, so the same mapping can be tested, listed in the
/// docs' table and sent.
public indirect enum AnalyticsValue: Equatable, Sendable {
    case string(String)
    case int(Int)
    /// Integer cents, written as currency units (`1250` → `12.50`): both vendors want money as a
    /// number of currency units, and the exact decimal keeps float rounding out of it.
    case money(Int)
    case bool(Bool)
    case list([AnalyticsValue])
    case object([AnalyticsProperty])

    /// The JSON type a reader sees, for the docs' table.
    public var typeName: String {
        switch self {
        case .string: "string"
        case .int: "integer"
        case .money: "number"
        case .bool: "boolean"
        case .list: "array"
        case .object: "object"
        }
    }

    public func write(into json: inout JSONWriter) {
        switch self {
        case .string(let text): json.string(text)
        case .int(let number): json.int(number)
        case .money(let cents): json.encodedValue(Money.format(cents: cents).utf8)
        case .bool(let flag): json.bool(flag)
        case .list(let values):
            json.beginArray()
            for value in values { value.write(into: &json) }
            json.endArray()
        case .object(let properties): AnalyticsProperty.write(properties, into: &json)
        }
    }
}

/// One named value of a call, in the order the mapping gives (vendors ignore the order; the docs
/// and the tests read it).
public struct AnalyticsProperty: Equatable, Sendable {
    public let name: String
    public let value: AnalyticsValue

    public init(_ name: String, _ value: AnalyticsValue) { (self.name, self.value) = (name, value) }

    public static func write(_ properties: [AnalyticsProperty], into json: inout JSONWriter) {
        json.beginObject()
        for property in properties {
            json.key(dynamic: property.name)
            property.value.write(into: &json)
        }
        json.endObject()
    }
}

extension Array where Element == AnalyticsProperty {
    /// The value named `name`, if any.
    public subscript(name: String) -> AnalyticsValue? { first { $0.name == name }?.value }
}
