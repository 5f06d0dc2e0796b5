import FlowDomain

/// A line that could not become a command: the rejection, and the stream it named, if it named one.
public struct WireRejection: Error, Equatable, Sendable {
    public var stream: String?
    public var rejection: Rejection
}

/// SPEC §2's wire form: one JSON object per line, `type` naming the command, its fields beside it,
/// and the envelope fields `stream`, `id`, `expectedVersion` and `correlationId`.
///
/// Decisions where the spec is silent: unknown members are ignored; `null` for an optional field means
/// the field is absent; for a repeated member the last one counts.
public enum WireCommand {
    public static let allTypes: [String] = [
        "cart.addProduct", "cart.removeProduct", "cart.applyDiscount", "cart.removeDiscount", "cart.checkout",
        "payment.succeeded", "payment.failed", "app.launched", "welcome.signUp", "welcome.logIn",
        "onboarding.next", "onboarding.back", "onboarding.finish", "login.succeeded", "login.cancel",
        "home.selectTab", "home.presentModal", "modal.dismiss",
    ]

    public static func decode(_ line: UnsafeRawBufferPointer) -> Result<CommandEnvelope, WireRejection> {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            return .failure(WireRejection(stream: nil, rejection: Rejection(.malformedCommand, "The line is not valid JSON (\(error)); send one JSON object per line.")))
        }
        return decode(value)
    }

    public static func decode(_ text: String) -> Result<CommandEnvelope, WireRejection> {
        var copy = text
        return copy.withUTF8 { decode(UnsafeRawBufferPointer($0)) }
    }

    public static func decode(_ value: JSONValue) -> Result<CommandEnvelope, WireRejection> {
        guard case .object(let members) = value else {
            return .failure(WireRejection(stream: nil, rejection: Rejection(.malformedCommand, "The line is \(value.typeName), not a JSON object; send one object per line, such as {\"type\":\"cart.checkout\"}.")))
        }
        var fields = Fields(members: members)
        do {
            let stream = try fields.optionalString("stream") ?? "default"
            fields.stream = stream
            let typeName = try fields.string("type")
            let commandId = try fields.optionalString("id")
            let expectedVersion = try fields.optionalInteger("expectedVersion")
            let correlationId = try fields.optionalString("correlationId")
            let command = try command(typeName, &fields)
            return .success(CommandEnvelope(stream: stream, commandId: commandId, expectedVersion: expectedVersion,
                                            correlationId: correlationId, command: command))
        } catch {
            return .failure(WireRejection(stream: fields.stream, rejection: error))
        }
    }

    private static func command(_ type: String, _ fields: inout Fields) throws(Rejection) -> AppCommand {
        switch type {
        case "cart.addProduct":
            return .cart(.addProduct(productId: try fields.string("productId"), name: try fields.optionalString("name"),
                                     unitPrice: try fields.integer("unitPrice"), quantity: try fields.integer("quantity")))
        case "cart.removeProduct":
            return .cart(.removeProduct(productId: try fields.string("productId"), quantity: try fields.optionalInteger("quantity")))
        case "cart.applyDiscount":
            return .cart(.applyDiscount(discountId: try fields.string("discountId"), percent: try fields.integer("percent"),
                                        productId: try fields.optionalString("productId")))
        case "cart.removeDiscount":
            return .cart(.removeDiscount(discountId: try fields.string("discountId")))
        case "cart.checkout": return .cart(.checkout)
        case "payment.succeeded": return .payment(.succeeded(orderId: try fields.string("orderId")))
        case "payment.failed": return .payment(.failed(reason: try fields.string("reason")))
        case "app.launched": return .app(.launched(hasOnboarded: try fields.bool("hasOnboarded")))
        case "welcome.signUp": return .welcome(.signUp)
        case "welcome.logIn": return .welcome(.logIn)
        case "onboarding.next": return .onboarding(.next)
        case "onboarding.back": return .onboarding(.back)
        case "onboarding.finish": return .onboarding(.finish)
        case "login.succeeded": return .login(.succeeded)
        case "login.cancel": return .login(.cancel)
        case "home.selectTab": return .home(.selectTab(try fields.integer("tab")))
        case "home.presentModal": return .home(.presentModal)
        case "modal.dismiss": return .modal(.dismiss)
        default:
            let shown = type.count > 60 ? String(type.prefix(60)) + "…" : type
            throw Rejection(.unknownCommand, "There is no command type \"\(shown)\"; use one of: \(allTypes.joined(separator: ", ")).")
        }
    }

    /// Typed access to an object's members, with the `malformedCommand` sentences.
    private struct Fields {
        let members: [(String, JSONValue)]
        var stream: String?

        func lookup(_ name: String) -> JSONValue? {
            guard let value = members.last(where: { $0.0 == name })?.1 else { return nil }
            if case .null = value { return nil }
            return value
        }

        func missing(_ name: String, _ kind: String) -> Rejection {
            Rejection(.malformedCommand, "The command lacks \"\(name)\" (\(kind)); add it.")
        }

        func wrongType(_ name: String, _ value: JSONValue, _ kind: String) -> Rejection {
            Rejection(.malformedCommand, "\"\(name)\" must be \(kind), not \(value.typeName).")
        }

        func optionalString(_ name: String) throws(Rejection) -> String? {
            guard let value = lookup(name) else { return nil }
            guard case .string(let text) = value else { throw wrongType(name, value, "a string") }
            return text
        }

        func string(_ name: String) throws(Rejection) -> String {
            guard let text = try optionalString(name) else { throw missing(name, "a string") }
            return text
        }

        func optionalInteger(_ name: String) throws(Rejection) -> Int? {
            guard let value = lookup(name) else { return nil }
            guard case .integer(let number) = value else { throw wrongType(name, value, "an integer") }
            return number
        }

        func integer(_ name: String) throws(Rejection) -> Int {
            guard let number = try optionalInteger(name) else { throw missing(name, "an integer") }
            return number
        }

        func bool(_ name: String) throws(Rejection) -> Bool {
            guard let value = lookup(name) else { throw missing(name, "true or false") }
            guard case .bool(let flag) = value else { throw wrongType(name, value, "true or false") }
            return flag
        }
    }

    /// The wire form of an envelope: the inverse of `decode`, for scripts and fixtures.
    public static func encode(_ envelope: CommandEnvelope) -> String {
        var json = JSONWriter()
        json.beginObject()
        json.key("type"); json.string(envelope.command.typeName)
        if envelope.stream != "default" { json.key("stream"); json.string(envelope.stream) }
        if let id = envelope.commandId { json.key("id"); json.string(id) }
        if let expected = envelope.expectedVersion { json.key("expectedVersion"); json.int(expected) }
        if let correlation = envelope.correlationId { json.key("correlationId"); json.string(correlation) }
        switch envelope.command {
        case .cart(.addProduct(let productId, let name, let unitPrice, let quantity)):
            json.key("productId"); json.string(productId)
            if let name { json.key("name"); json.string(name) }
            json.key("unitPrice"); json.int(unitPrice)
            json.key("quantity"); json.int(quantity)
        case .cart(.removeProduct(let productId, let quantity)):
            json.key("productId"); json.string(productId)
            if let quantity { json.key("quantity"); json.int(quantity) }
        case .cart(.applyDiscount(let discountId, let percent, let productId)):
            json.key("discountId"); json.string(discountId)
            json.key("percent"); json.int(percent)
            if let productId { json.key("productId"); json.string(productId) }
        case .cart(.removeDiscount(let discountId)):
            json.key("discountId"); json.string(discountId)
        case .payment(.succeeded(let orderId)):
            json.key("orderId"); json.string(orderId)
        case .payment(.failed(let reason)):
            json.key("reason"); json.string(reason)
        case .app(.launched(let hasOnboarded)):
            json.key("hasOnboarded"); json.bool(hasOnboarded)
        case .home(.selectTab(let tab)):
            json.key("tab"); json.int(tab)
        case .cart(.checkout), .welcome, .onboarding, .login, .home(.presentModal), .modal:
            break
        }
        json.endObject()
        return json.text
    }
}
