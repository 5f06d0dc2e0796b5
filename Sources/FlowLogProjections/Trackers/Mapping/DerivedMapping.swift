import Deciding
public import FlowDomain

/// The call every event kind gets when no vendor mapping names it, derived from the kind's
/// declaration (its type name and fields) alone. This is what keeps "one declaration per kind":
/// a new event kind is tracked, as a custom event, without a line in the trackers.
public enum DerivedMapping {
    /// The event's fields, snake_case, typed by their declared field type (cents as money, with the
    /// currency), optional fields only when set.
    public static func properties(of event: AppEvent, settings: AnalyticsSettings) -> [AnalyticsProperty] {
        var collector = PropertyCollector()
        try? event.visitPayload(&collector)
        // An event's own currency, reported as a cart's is.
        if collector.hasMoney || collector.currency != nil { collector.properties.append(settings.currencyProperty(for: collector.currency)) }
        return collector.properties
    }

    /// `cart.quantityChanged` → `Cart Quantity Changed`: Segment's events are Title Case phrases.
    public static func segmentName(_ typeName: String) -> String {
        words(typeName).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }

    /// `cart.quantityChanged` → `cart_quantity_changed`, within GA4's naming rules (see `GA4Names`).
    public static func ga4Name(_ typeName: String) -> String {
        GA4Names.eventName(words(typeName).joined(separator: "_"))
    }

    /// `productId` → `product_id`.
    public static func snakeCase(_ name: String) -> String { words(name).joined(separator: "_") }

    /// The lower-case words of a dotted camelCase name.
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        for character in name {
            if character == "." || character == "_" || character == " " || character.isUppercase {
                if !current.isEmpty { words.append(current) }
                current = character.isUppercase ? character.lowercased() : ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    private struct PropertyCollector: EventPayloadVisitor, FieldVisitor {
        var properties: [AnalyticsProperty] = []
        var hasMoney = false
        /// A field of type currency: sent once, as the currency of the event's amounts.
        var currency: String?

        mutating func visit<Payload: EventPayload>(_ payload: Payload) throws {
            var copy = payload
            try copy.visitFields(&self)
        }

        private mutating func add(_ field: Field, _ value: AnalyticsValue) {
            properties.append(AnalyticsProperty(DerivedMapping.snakeCase(field.nameText), value))
        }

        mutating func visit(_ field: Field, _ value: inout String) {
            if field.type == .currency { currency = value } else { add(field, .string(value)) }
        }
        mutating func visit(_ field: Field, _ value: inout String?) { if let value { add(field, .string(value)) } }
        mutating func visit(_ field: Field, _ value: inout Int) {
            if field.type == .cents {
                hasMoney = true
                add(field, .money(value))
            } else {
                add(field, .int(value))
            }
        }
        mutating func visit(_ field: Field, _ value: inout Int?) {
            guard let value else { return }
            var number = value
            visit(field, &number)
        }
        mutating func visit(_ field: Field, _ value: inout Bool) { add(field, .bool(value)) }
    }
}
