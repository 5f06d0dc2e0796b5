/// Members written as one call each, so a record reads as its fields (`json.field("lag", lag)`)
/// rather than as pairs of calls; the bytes are those of `key` followed by the value.
extension JSONWriter {
    public mutating func field(_ name: StaticString, _ value: String?) {
        key(name)
        string(value)
    }
    public mutating func field(_ name: StaticString, _ value: Int) {
        key(name)
        int(value)
    }
    public mutating func field(_ name: StaticString, _ value: Int?) {
        key(name)
        if let value { int(value) } else { null() }
    }
    public mutating func field(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }
    public mutating func field(_ name: StaticString, _ values: [Int]) {
        key(name)
        beginArray()
        for value in values { int(value) }
        endArray()
    }
    public mutating func field(_ name: StaticString, _ values: [String]) {
        key(name)
        beginArray()
        for value in values { string(value) }
        endArray()
    }

    /// An object whose members `body` writes.
    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        beginObject()
        body(&self)
        endObject()
    }

    /// An array with what `body` writes for each element (usually an object).
    public mutating func array<Elements: Sequence>(_ elements: Elements, _ body: (inout JSONWriter, Elements.Element) -> Void) {
        beginArray()
        for element in elements { body(&self, element) }
        endArray()
    }
}
