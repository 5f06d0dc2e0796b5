import FlowDomain

/// Reads one line of an NDJSON export (SPEC §5's envelope, as `FlowJSON.writeEvent` writes it) back
/// into a recorded event, checking every field as strictly as the command line checks commands.
public enum RecordedEventJSON {
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    public static func decode(_ line: UnsafeRawBufferPointer) throws(Problem) -> RecordedEvent {
        let value: JSONValue
        do { value = try JSONParser.parse(line) } catch { throw Problem(message: "it is not valid JSON (\(error))") }
        return try decode(value)
    }

    public static func decode(_ value: JSONValue) throws(Problem) -> RecordedEvent {
        guard case .object = value else { throw Problem(message: "it is \(value.typeName), not a JSON object") }
        let envelope = Fields(value)
        let position = try envelope.integer("position", in: 1...Int(Int64.max))
        let stream = try envelope.identifier("stream")
        let version = try envelope.integer("version", in: 1...Int(Int64.max))
        guard let eventId = EventID(try envelope.string("eventId")) else { throw Problem(message: "\"eventId\" is not a UUID") }
        let type = try envelope.string("type")
        guard let actor = Actor(rawValue: try envelope.string("actor")) else { throw Problem(message: "\"actor\" must be \"user\" or \"system\"") }
        guard let timestamp = Timestamp(rfc3339: try envelope.string("timestamp")) else {
            throw Problem(message: "\"timestamp\" is not an RFC 3339 time such as 2026-11-21T13:25:17.123456Z")
        }
        let schemaVersion = try envelope.optionalInteger("schemaVersion") ?? RecordCodec.currentSchemaVersion
        guard (1...RecordCodec.currentSchemaVersion).contains(schemaVersion) else {
            throw Problem(message: "\"schemaVersion\" \(schemaVersion) is not one this FlowLog reads (1 through \(RecordCodec.currentSchemaVersion))")
        }
        let correlationId = try envelope.optionalIdentifier("correlationId")
        let causationId = try envelope.optionalIdentifier("causationId")
        guard let dataValue = value["data"], case .object = dataValue else { throw Problem(message: "\"data\" must be an object") }
        let event = try self.event(type, Fields(dataValue))
        return RecordedEvent(position: position, stream: stream, version: version, eventId: eventId, timestamp: timestamp,
                             actor: actor, correlationId: correlationId, causationId: causationId,
                             schemaVersion: schemaVersion, event: event)
    }

    private static func event(_ type: String, _ data: Fields) throws(Problem) -> AppEvent {
        let amount = 0...Int(Int64.max)
        switch type {
        case "cart.productAdded":
            return .cart(.productAdded(productId: try data.identifier("productId"), name: try data.text("name"),
                                       unitPrice: try data.integer("unitPrice", in: amount), quantity: try data.integer("quantity", in: amount)))
        case "cart.productRemoved":
            return .cart(.productRemoved(productId: try data.identifier("productId"), quantity: try data.integer("quantity", in: amount)))
        case "cart.discountApplied":
            return .cart(.discountApplied(discountId: try data.identifier("discountId"), percent: try data.integer("percent", in: 0...100),
                                          productId: try data.optionalIdentifier("productId")))
        case "cart.discountRemoved":
            return .cart(.discountRemoved(discountId: try data.identifier("discountId")))
        case "cart.checkoutStarted":
            return .cart(.checkoutStarted(total: try data.integer("total", in: amount), itemCount: try data.integer("itemCount", in: amount)))
        case "cart.orderPlaced":
            return .cart(.orderPlaced(orderId: try data.identifier("orderId"), total: try data.integer("total", in: amount),
                                      itemCount: try data.integer("itemCount", in: amount)))
        case "cart.paymentFailed":
            return .cart(.paymentFailed(reason: try data.text("reason")))
        case "app.launched":
            return .navigation(.appLaunched(hasOnboarded: try data.bool("hasOnboarded")))
        case "welcome.signUpStarted": return .navigation(.signUpStarted)
        case "welcome.logInStarted": return .navigation(.logInStarted)
        case "onboarding.advanced": return .navigation(.onboardingAdvanced)
        case "onboarding.wentBack": return .navigation(.onboardingWentBack)
        case "onboarding.finished": return .navigation(.onboardingFinished)
        case "login.succeeded": return .navigation(.loginSucceeded)
        case "login.cancelled": return .navigation(.loginCancelled)
        case "home.tabSelected": return .navigation(.tabSelected(try data.integer("tab", in: 0...1)))
        case "home.modalPresented": return .navigation(.modalPresented)
        case "modal.dismissed": return .navigation(.modalDismissed)
        default:
            throw Problem(message: "\"type\" \"\(type.prefix(60))\" is not an event type; the types are \(ExportFilter.eventTypes.joined(separator: ", "))")
        }
    }

    private struct Fields {
        let value: JSONValue
        init(_ value: JSONValue) { self.value = value }

        func present(_ name: String) -> JSONValue? {
            guard let member = value[name] else { return nil }
            if case .null = member { return nil }
            return member
        }

        func string(_ name: String) throws(Problem) -> String {
            guard let member = present(name) else { throw Problem(message: "\"\(name)\" is missing") }
            guard case .string(let text) = member else { throw Problem(message: "\"\(name)\" must be a string, not \(member.typeName)") }
            return text
        }

        func text(_ name: String) throws(Problem) -> String {
            let text = try string(name)
            guard text.utf8.count <= Int(UInt16.max) else { throw Problem(message: "\"\(name)\" is longer than 65,535 bytes") }
            return text
        }

        func identifier(_ name: String) throws(Problem) -> String {
            let text = try string(name)
            guard Identifier.isValid(text) else { throw Problem(message: "\"\(name)\" is not an identifier (1 to 64 of A-Z a-z 0-9 . _ : -)") }
            return text
        }

        func optionalIdentifier(_ name: String) throws(Problem) -> String? {
            present(name) == nil ? nil : try identifier(name)
        }

        func optionalInteger(_ name: String) throws(Problem) -> Int? {
            guard let member = present(name) else { return nil }
            guard case .integer(let number) = member else { throw Problem(message: "\"\(name)\" must be an integer, not \(member.typeName)") }
            return number
        }

        func integer(_ name: String, in range: ClosedRange<Int>) throws(Problem) -> Int {
            guard let number = try optionalInteger(name) else { throw Problem(message: "\"\(name)\" is missing") }
            guard range.contains(number) else { throw Problem(message: "\"\(name)\" \(number) is out of range") }
            return number
        }

        func bool(_ name: String) throws(Problem) -> Bool {
            guard let member = present(name) else { throw Problem(message: "\"\(name)\" is missing") }
            guard case .bool(let flag) = member else { throw Problem(message: "\"\(name)\" must be true or false") }
            return flag
        }
    }
}
