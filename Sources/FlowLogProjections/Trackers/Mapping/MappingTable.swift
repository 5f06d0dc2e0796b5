import Deciding
import FlowDomain
import FlowLogBasics
import FlowLogStore

/// docs/analytics.md's mapping table, generated from the mappings themselves (a test fails when
/// the page differs; `flowlog schema trackers` prints it): every declared event kind, with the
/// Segment calls and GA4 events a sample of it gives, their property names and JSON types.
public enum MappingTable {
    public static func markdown(settings: AnalyticsSettings = AnalyticsSettings()) -> String {
        var lines = [
            "| event kind | Segment calls | GA4 events |",
            "|---|---|---|",
        ]
        // The log's own events (the erasure audit trail) are never sent: no row of theirs.
        for info in EventKinds.all where !info.kind.isSystem {
            let tracked = sample(info.kind)
            let derived = DerivedMapping.segmentName(info.typeName)
            let segment = SegmentMapping.calls(for: tracked, settings: settings).map { call in
                // A screen call names the screen the event leaves on view, which the sample cannot show.
                if call.type == .screen { return "screen *(the screen on view)*" }
                let custom = call.name == derived ? " *(custom, derived)*" : ""
                return "track **\(call.name)**\(custom)\(describe(call.properties))"
            }
            let ga4Derived = DerivedMapping.ga4Name(info.typeName)
            let ga4 = GA4Mapping.events(for: tracked, settings: settings).map { event in
                "**\(GA4Names.eventName(event.name))**\(event.name == ga4Derived ? " *(custom, derived)*" : "")\(describe(GA4Names.limited(event.params)))"
            }
            lines.append("| `\(info.typeName)` | \(segment.joined(separator: "<br>")) | \(ga4.joined(separator: "<br>")) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// ` name type, …`; arrays of objects list their members' names; empty for none.
    static func describe(_ properties: [AnalyticsProperty]) -> String {
        guard !properties.isEmpty else { return "" }
        return " "
            + properties.map { property in
                if case .list(let values) = property.value, case .object(let members)? = values.first {
                    return "`\(property.name)[]` {\(members.map(\.name).joined(separator: ", "))}"
                }
                return "`\(property.name)` \(property.value.typeName)"
            }.joined(separator: ", ")
    }

    /// An event of `kind` with sample field values, in a stream that has launched, is on home, and
    /// is checking out a cart of one discounted line with a cart discount.
    static func sample(_ kind: AppEvent.Kind) -> TrackedEvent {
        var decoder = SampleDecoder()
        let event = (try? AppEvent.decode(kind, &decoder)) ?? AppEvent.navigation(.modalDismissed)
        var state = StreamAnalyticsState()
        state.flow.cart.lines = [CartLine(productId: "p1", name: "Mug", unitPrice: 1250, quantity: 2, discount: Discount(id: "D1", percent: 10))]
        state.flow.cart.cartDiscount = Discount(id: "C1", percent: 5)
        state.flow.cart.status = .checkingOut
        state.flow.navigation.launched = true
        state.flow.navigation.stack = [.home]
        state.checkoutVersion = 5
        let record = RecordedEvent(
            position: 7, stream: "s1", version: 7, eventId: EventID(high: 1, low: 7),
            timestamp: Timestamp(microseconds: 1_798_761_600_000_000), actor: .user, event: event)
        return TrackedEvent(record: record, before: state)
    }

    private struct SampleDecoder: PayloadDecoder, FieldVisitor {
        mutating func visit(_ field: Field, _ value: inout String) { value = Self.text(field) }
        mutating func visit(_ field: Field, _ value: inout String?) { value = Self.text(field) }
        mutating func visit(_ field: Field, _ value: inout Int) { value = Self.number(field) }
        mutating func visit(_ field: Field, _ value: inout Int?) { value = Self.number(field) }
        mutating func visit(_ field: Field, _ value: inout Bool) { value = true }

        static func text(_ field: Field) -> String {
            switch field.nameText {
            case "productId": "p1"
            case "discountId": "D1"
            default: field.type == .identifier ? "id-1" : field.type == .currency ? "USD" : "text"
            }
        }

        static func number(_ field: Field) -> Int {
            switch field.type {
            case .cents: 1250
            case .percent: 10
            case .tab: 1
            default: 1
            }
        }
    }
}
