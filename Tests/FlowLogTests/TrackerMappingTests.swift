import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Foundation
import Testing

@testable import FlowLogProjections

/// The events of `commands` in one stream, each with the stream's analytics state just before it.
private func tracked(_ commands: [AppCommand]) throws -> [TrackedEvent] {
    var state = StreamAnalyticsState()
    var tracked: [TrackedEvent] = []
    var version = 0
    for command in commands {
        for event in try FlowDecider.decide(command, state: state.flow) {
            version += 1
            let record = RecordedEvent(
                position: version, stream: "s1", version: version, eventId: EventID(high: 9, low: UInt64(version)),
                timestamp: Timestamp(microseconds: 1_798_761_600_000_000 + Int64(version)), actor: .user, event: event)
            tracked.append(TrackedEvent(record: record, before: state))
            state.apply(record)
        }
    }
    return tracked
}

private let shopping: [AppCommand] = [
    .cart(.addProduct(.init(productId: "p-mug", name: "Mug", unitPrice: 1250, quantity: 2))),
    .cart(.addProduct(.init(productId: "p-tee", name: "T-shirt", unitPrice: 1999, quantity: 1))),
    .cart(.applyDiscount(.init(discountId: "MUG10", percent: 10, productId: "p-mug"))),
    .cart(.applyDiscount(.init(discountId: "WELCOME5", percent: 5, productId: nil))),
    .cart(.checkout),
    .payment(.succeeded(.init(orderId: "order-1"))),
]

@Suite("Tracker mappings")
struct TrackerMappingTests {
    @Test func everyDeclaredKindMapsInBothTrackersWithinGA4sRules() {
        for info in EventKinds.all {
            let sample = MappingTable.sample(info.kind)
            #expect(!SegmentMapping.calls(for: sample, settings: AnalyticsSettings()).isEmpty, "\(info.typeName) has no Segment call")
            let events = GA4Mapping.events(for: sample, settings: AnalyticsSettings())
            #expect(!events.isEmpty, "\(info.typeName) has no GA4 event")
            for event in events {
                let name = GA4Names.eventName(event.name)
                #expect(name == event.name, "\(info.typeName): the mapping names \(event.name), which GA4's rules mend")
                #expect(name.count <= 40 && name.first?.isLetter == true && !GA4Names.reservedEventNames.contains(name), "\(info.typeName): \(name)")
                for param in GA4Names.limited(event.params) {
                    #expect(param.name.count <= 40, "\(info.typeName): \(param.name)")
                    if case .string(let text) = param.value { #expect(text.count <= 100) }
                }
            }
        }
    }

    @Test func aKindWithoutAMappingGetsACustomEventDerivedFromItsDeclaration() throws {
        let failed = try tracked([
            .cart(.addProduct(.init(productId: "p", name: nil, unitPrice: 100, quantity: 1))), .cart(.checkout),
            .payment(.failed(.init(reason: "card declined"))),
        ]).last!
        #expect(
            SegmentMapping.calls(for: failed, settings: AnalyticsSettings()) == [
                SegmentCall(.track, "Cart Payment Failed", [AnalyticsProperty("reason", .string("card declined"))])
            ])
        #expect(
            GA4Mapping.events(for: failed, settings: AnalyticsSettings()) == [
                GA4Event("cart_payment_failed", [AnalyticsProperty("reason", .string("card declined"))])
            ])
        // The names a kind the team adds next will get, with no tracker edit.
        #expect(DerivedMapping.segmentName("cart.quantityChanged") == "Cart Quantity Changed")
        #expect(DerivedMapping.ga4Name("cart.quantityChanged") == "cart_quantity_changed")
        // Cents fields become money with the currency.
        let added = MappingTable.sample(.cart(.productAdded))
        let derived = DerivedMapping.properties(of: added.record.event, settings: AnalyticsSettings(currency: "EUR"))
        #expect(derived["unit_price"] == .money(1250))
        #expect(derived["currency"] == .string("EUR"))
    }

    @Test func orderCompletedAndPurchaseCarryTheCartAsEcommerceSpecsWantIt() throws {
        let events = try tracked(shopping)
        let order = try #require(events.last)
        let segment = try #require(SegmentMapping.calls(for: order, settings: AnalyticsSettings(currency: "EUR")).first)
        #expect(segment.name == "Order Completed")
        let properties = segment.properties
        // 2 × 12.50 − 10 % = 22.50, + 19.99 = 42.49; − 5 % (2.12) = 40.37; discounts 2.50 + 2.12.
        #expect(properties["order_id"] == .string("order-1"))
        #expect(properties["total"] == .money(4037) && properties["revenue"] == .money(4037) && properties["subtotal"] == .money(4037))
        #expect(properties["discount"] == .money(462))
        #expect(properties["coupon"] == .string("WELCOME5"))
        #expect(properties["currency"] == .string("EUR"))
        #expect(properties["cart_id"] == .string("s1-cart-1"))
        #expect(properties["checkout_id"] == .string("s1-checkout-5"))
        guard case .list(let products)? = properties["products"], case .object(let mug)? = products.first else {
            Issue.record("Order Completed has no products")
            return
        }
        #expect(products.count == 2)
        #expect(
            mug["product_id"] == .string("p-mug") && mug["price"] == .money(1250) && mug["quantity"] == .int(2) && mug["coupon"] == .string("MUG10"))
        let purchase = try #require(GA4Mapping.events(for: order, settings: AnalyticsSettings()).first)
        #expect(purchase.name == "purchase")
        #expect(
            purchase.params["transaction_id"] == .string("order-1") && purchase.params["value"] == .money(4037)
                && purchase.params["currency"] == .string("USD"))
        guard case .list(let items)? = purchase.params["items"], case .object(let item)? = items.first else {
            Issue.record("purchase has no items")
            return
        }
        #expect(items.count == 2)
        #expect(item["item_id"] == .string("p-mug") && item["discount"] == .money(125))
        // The next cart of the stream is another cart.
        var after = StreamAnalyticsState()
        for event in events { after.apply(event.record) }
        #expect(TrackedEvent(record: order.record, before: after).cartId == "s1-cart-2")
    }

    @Test func productRemovedAndCouponsReadNamesPricesAndAmountsFromTheCart() throws {
        let events = try tracked([
            .cart(.addProduct(.init(productId: "p-mug", name: "Mug", unitPrice: 1250, quantity: 2))),
            .cart(.applyDiscount(.init(discountId: "D10", percent: 10, productId: nil))),
            .cart(.removeDiscount(.init(discountId: "D10"))),
            .cart(.removeProduct(.init(productId: "p-mug", quantity: 1))),
        ])
        let applied = SegmentMapping.calls(for: events[1], settings: AnalyticsSettings())[0]
        #expect(
            applied.name == "Coupon Applied" && applied.properties["coupon_id"] == .string("D10") && applied.properties["discount"] == .money(250))
        let removedCoupon = SegmentMapping.calls(for: events[2], settings: AnalyticsSettings())[0]
        #expect(removedCoupon.name == "Coupon Removed" && removedCoupon.properties["discount"] == .money(250))
        let removed = SegmentMapping.calls(for: events[3], settings: AnalyticsSettings())[0]
        #expect(removed.name == "Product Removed")
        #expect(
            removed.properties["name"] == .string("Mug") && removed.properties["price"] == .money(1250) && removed.properties["quantity"] == .int(1))
        let ga4 = GA4Mapping.events(for: events[3], settings: AnalyticsSettings())[0]
        #expect(ga4.name == "remove_from_cart" && ga4.params["value"] == .money(1250))
    }

    @Test func theOnboardingFlowIsScreensSignUpAndSignIn() throws {
        let events = try tracked([
            .app(.launched(.init(hasOnboarded: false))), .welcome(.signUp), .onboarding(.next), .onboarding(.back),
            .onboarding(.next), .onboarding(.finish), .app(.launched(.init(hasOnboarded: false))), .home(.presentModal),
        ])
        let segment = events.map { SegmentMapping.calls(for: $0, settings: AnalyticsSettings()).map { "\($0.type.rawValue) \($0.name)" } }
        #expect(
            segment == [
                ["track Application Opened", "screen Welcome"], ["screen Onboarding First"],
                ["screen Onboarding Second"], ["screen Onboarding First"], ["screen Onboarding Second"],
                ["track Signed Up", "screen Home"], ["track Application Opened", "screen Home"], ["screen Modal"],
            ])
        let ga4 = events.map { GA4Mapping.events(for: $0, settings: AnalyticsSettings()).map(\.name) }
        #expect(ga4[1] == ["tutorial_begin"] && ga4[5] == ["tutorial_complete", "sign_up"])
        let login = try tracked([.app(.launched(.init(hasOnboarded: false))), .welcome(.logIn), .login(.succeeded)]).last!
        #expect(SegmentMapping.calls(for: login, settings: AnalyticsSettings()).map(\.name) == ["Signed In", "Home"])
        #expect(GA4Mapping.events(for: login, settings: AnalyticsSettings()).map(\.name) == ["login"])
    }

    @Test func ga4NamesAndValuesAreMendedIntoGA4sLimits() {
        #expect(GA4Names.eventName("screen_view") == "flowlog_screen_view")
        #expect(GA4Names.eventName("ga_thing") == "flowlog_ga_thing")
        #expect(GA4Names.eventName("9 lives!") == "e9_lives_")
        #expect(GA4Names.eventName(String(repeating: "a", count: 60)).count == 40)
        #expect(GA4Names.paramName("_private") == "e_private")
        #expect(GA4Names.limited(.string(String(repeating: "é", count: 150))) == .string(String(repeating: "é", count: 100)))
        #expect(GA4Names.limited(.string(String(repeating: "é", count: 60))) == .string(String(repeating: "é", count: 60)))
    }

    /// A name passed through as valid is the name mending would give; any other is mended.
    @Test(arguments: [1, 2, 3])
    func aNameTakenAsValidIsWhatMendingItGives(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let alphabet = Array("aZ09_-é. \u{0}\u{1F600}".unicodeScalars)
        for _ in 0..<2_000 {
            let length = Int(random.next() % 45)
            var name = String(String.UnicodeScalarView((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }))
            if random.next() % 2 == 0 { name = "item" + name.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") } }
            #expect(GA4Names.validName(name) == GA4Names.mendedName(name), "\(name.debugDescription)")
            if GA4Names.isValid(name) { #expect(GA4Names.mendedName(name) == name, "\(name.debugDescription)") }
        }
        #expect(GA4Names.isValid("item_id") && !GA4Names.isValid("_id") && !GA4Names.isValid("9a") && !GA4Names.isValid(""))
        #expect(!GA4Names.isValid(String(repeating: "a", count: 41)) && GA4Names.isValid(String(repeating: "a", count: 40)))
    }

    @Test func segmentMessagesHaveStableIdsTheEventsTimeAndTheLibrary() throws {
        let launch = try tracked([.app(.launched(.init(hasOnboarded: true)))])[0]
        let service = SegmentService(library: LibraryInfo(version: "9.9.9"))
        let messages = service.messages(for: launch)
        #expect(messages.map(\.id) == [launch.record.eventId.description, launch.record.eventId.description + "-2"])
        #expect(service.messages(for: launch) == messages, "the same event always makes the same messages")
        let first = try JSONParser.parse(String(decoding: messages[0].bytes, as: UTF8.self))
        #expect(first["messageId"] == .string(launch.record.eventId.description))
        #expect(first["timestamp"] == .string(launch.record.timestamp.rfc3339))
        #expect(first["context"]?["library"] == .object([("name", .string("flowlog")), ("version", .string("9.9.9"))]))
        #expect(first["anonymousId"] == .string("s1"))
        let body = try JSONParser.parse(String(decoding: service.body(of: messages[...], sentAt: Timestamp(microseconds: 5)), as: UTF8.self))
        #expect(body["sentAt"] == .string(Timestamp(microseconds: 5).rfc3339))
        guard case .array(let batch)? = body["batch"] else {
            Issue.record("no batch")
            return
        }
        #expect(batch.count == 2)
    }

    @Test func moneyIsWrittenAsExactCurrencyUnits() {
        var json = JSONWriter()
        AnalyticsProperty.write(
            [AnalyticsProperty("a", .money(1999)), AnalyticsProperty("b", .money(5)), AnalyticsProperty("c", .money(100_000_000))], into: &json)
        #expect(json.text == #"{"a":19.99,"b":0.05,"c":1000000.00}"#)
    }

    @Test func docsTableIsGeneratedFromTheMappings() throws {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/analytics.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        let begin = "<!-- mapping-table:begin -->\n"
        let table = try #require(text.components(separatedBy: begin).last?.components(separatedBy: "<!-- mapping-table:end -->").first)
        // Line by line, so a failure names the rows that differ and not the whole page.
        let documented = table.split(separator: "\n").map(String.init)
        let generated = MappingTable.markdown().split(separator: "\n").map(String.init)
        #expect(
            documented.count == generated.count,
            "docs/analytics.md's table has \(documented.count) lines, the code \(generated.count): run scripts/update-analytics-table")
        for (line, expected) in zip(documented, generated) where line != expected {
            Issue.record("docs/analytics.md differs from the code at \(expected.prefix(60))…: run scripts/update-analytics-table")
        }
    }
}
