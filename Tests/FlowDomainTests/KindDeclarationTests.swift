import Deciding
import FlowDomain
import FlowLogTesting
import Testing

/// Every list of kinds derives from the declarations: these pin what the declarations promise.
@Suite("Kind declarations")
struct KindDeclarationTests {
    @Test func everyEventKindHasItsOwnTypeNameAndTag() {
        let kinds = EventKinds.all
        #expect(Set(kinds.map(\.typeName)).count == kinds.count)
        #expect(Set(kinds.map(\.declaration.tag)).count == kinds.count)
        for info in kinds {
            #expect(EventKinds.kind(tag: info.declaration.tag) == info.kind)
            #expect(EventKinds.info(typeName: info.typeName)?.kind == info.kind)
        }
    }

    /// Stored records carry these numbers: renumbering one would misread every old log.
    @Test func theTagsOfTheFirstKindsNeverChange() {
        let pinned: [String: UInt16] = [
            "cart.productAdded": 1, "cart.productRemoved": 2, "cart.discountApplied": 3, "cart.discountRemoved": 4,
            "cart.checkoutStarted": 5, "cart.orderPlaced": 6, "cart.paymentFailed": 7, "app.launched": 20,
            "welcome.signUpStarted": 21, "welcome.logInStarted": 22, "onboarding.advanced": 23, "onboarding.wentBack": 24,
            "onboarding.finished": 25, "login.succeeded": 26, "login.cancelled": 27, "home.tabSelected": 28,
            "home.modalPresented": 29, "modal.dismissed": 30,
        ]
        for (name, tag) in pinned {
            #expect(EventKinds.info(typeName: name)?.declaration.tag == tag, "\(name)")
        }
    }

    @Test func everyCommandKindHasItsOwnTypeNameAndCommandLine() {
        let kinds = CommandKinds.all
        #expect(Set(kinds.map(\.typeName)).count == kinds.count)
        #expect(Set(kinds.map { "\($0.declaration.group) \($0.declaration.verb)" }).count == kinds.count)
        for info in kinds {
            #expect(CommandKinds.info(typeName: info.typeName)?.kind == info.kind)
            // A payload made into a command lands on the kind the family's switch gives it.
            #expect(AppCommand(info.payloadType.init()).kind == info.kind)
        }
    }

    /// A value's kind is looked up from its payload (an event's tag, a command's payload type), so
    /// each kind's payload must be its own, and the decoding switch must make, for each kind, a value
    /// that comes back as that kind (a case decoded into another kind's payload fails here).
    @Test func everyKindDecodesToAValueOfThatKind() throws {
        #expect(Set(CommandKinds.all.map { ObjectIdentifier($0.payloadType) }).count == CommandKinds.all.count)
        for kind in AppEvent.Kind.allCases {
            var blank = BlankValues()
            #expect(try AppEvent.decode(kind, &blank).kind == kind)
        }
        for kind in AppCommand.Kind.allCases {
            var blank = BlankValues()
            #expect(try AppCommand.decode(kind, &blank).kind == kind)
        }
    }

    @Test func theFieldsOfAKindAreListedInDeclarationOrder() {
        let added = EventKinds.info(typeName: "cart.productAdded")!
        #expect(added.fields.map(\.field.nameText) == ["productId", "name", "unitPrice", "quantity", "currency"])
        #expect(added.fields.compactMap { $0.field.column?.name.description } == ["product_id", "name", "unit_price", "quantity", "currency"])
        #expect(added.versions.map(\.version) == [1, 2])
        #expect(added.versions[0].fields.map(\.field.nameText) == ["productId", "name", "unitPrice", "quantity"])
        let discount = EventKinds.info(typeName: "cart.discountApplied")!
        #expect(discount.fields.map(\.optional) == [false, false, false, true])
        #expect(discount.versions.map(\.version) == [1, 2])
        #expect(discount.versions[0].fields.map(\.field.nameText) == ["discountId", "percent", "productId"])
        #expect(CommandKinds.info(typeName: "cart.checkout")!.fields.isEmpty)
    }

    @Test func everyEventFieldHasAColumnAndEveryColumnAField() {
        let columns = EventKinds.columns
        #expect(columns.map(\.order) == columns.map(\.order).sorted())
        for info in EventKinds.all {
            for field in info.fields { #expect(field.field.column != nil, "\(info.typeName).\(field.field.name)") }
        }
        #expect(columns.count == Set(EventKinds.all.flatMap(\.fields).compactMap(\.field.column)).count)
    }

    @Test func theRandomGeneratorsDrawEveryKind() {
        var rng = SplitMix64(seed: 3)
        let commands = RandomCommands()
        let drawnCommands = Set((0..<3_000).map { _ in commands.command(using: &rng).kind })
        #expect(drawnCommands.count == CommandKinds.all.count)
        let events = RandomEvents()
        let drawnEvents = Set((0..<3_000).map { _ in events.event(using: &rng).kind })
        #expect(drawnEvents.count == EventKinds.all.count)
    }
}

/// A decoder that fills nothing: every payload as its blank `init()` leaves it.
private struct BlankValues: PayloadDecoder {
    func payload<Payload: KindPayload>(_ type: Payload.Type) -> Payload { Payload() }
}
