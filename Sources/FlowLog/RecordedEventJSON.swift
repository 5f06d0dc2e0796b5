import FlowDomain

/// Reads one line of an NDJSON export (SPEC §5's envelope, as `FlowJSON.writeEvent` writes it) back
/// into a recorded event, checking every field as strictly as the command line checks commands.
public enum RecordedEventJSON {
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// Decodes one line. Members may come in any order; for a repeated member the last counts;
    /// `null` means absent; unknown members are ignored (but must be valid JSON).
    public static func decode(_ line: UnsafeRawBufferPointer) throws(Problem) -> RecordedEvent {
        do {
            return try scan(line)
        } catch let syntax as JSONSyntaxError {
            throw Problem(message: "it is not valid JSON (\(syntax))")
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem(message: "\(error)")
        }
    }

    /// The event's own fields, gathered before the type is known (members come in any order).
    private struct DataFields {
        var productId: String?, name: String?, unitPrice: Int?, quantity: Int?, discountId: String?, percent: Int?
        var orderId: String?, total: Int?, itemCount: Int?, reason: String?, hasOnboarded: Bool?, tab: Int?
    }

    @inline(__always)
    private static func scan(_ line: UnsafeRawBufferPointer) throws -> RecordedEvent {
        if let record = canonical(line) { return record }
        return try general(line)
    }

    /// A line in the layout `FlowJSON.writeEvent` writes (members in its order, no whitespace),
    /// read by matching that layout instead of looking each member up by name: most lines an
    /// import meets are exports. Anything else — another order, whitespace, `null`, an unknown
    /// member, a value that breaks a rule — gives `nil`, and `general` reads the line (and names
    /// what is wrong with it). Every field is checked by the same code as in `general`, so a line
    /// read here reads the same there (`RecordedEventJSONTests` checks that over mutated lines).
    static func canonical(_ line: UnsafeRawBufferPointer) -> RecordedEvent? {
        var scanner = JSONScanner(line)
        func identifier() -> String? { try? Self.identifier(&scanner, "") }
        guard scanner.literal(#"{"position":"#), let position = scanner.integer(), position >= 1,
              scanner.literal(#","stream":"#), let stream = identifier(),
              scanner.literal(#","version":"#), let version = scanner.integer(), version >= 1,
              scanner.literal(#","eventId":"#), let eventId = scanner.fixedLengthString(36, EventID.parse),
              scanner.literal(#","type":"#), let rawType = scanner.plainStringBytes(), let tag = EventTag(typeName: rawType),
              scanner.literal(#","actor":"#), let rawActor = scanner.plainStringBytes(),
              let actor: Actor = rawActor.equals("user") ? .user : rawActor.equals("system") ? .system : nil,
              scanner.literal(#","timestamp":"#), let timestamp = scanner.fixedLengthString(Timestamp.exportedLength, Timestamp.parseRFC3339),
              scanner.literal(#","schemaVersion":"#), let schema = scanner.integer(), (1...RecordCodec.currentSchemaVersion).contains(schema)
        else { return nil }
        var correlationId: String?
        var causationId: String?
        if scanner.literal(#","correlationId":"#) {
            guard let id = identifier() else { return nil }
            correlationId = id
        }
        if scanner.literal(#","causationId":"#) {
            guard let id = identifier() else { return nil }
            causationId = id
        }
        guard scanner.literal(#","data":"#), let event = canonicalData(tag, &scanner), scanner.literal("}"), scanner.atEnd()
        else { return nil }
        return RecordedEvent(position: position, stream: stream, version: version, eventId: eventId, timestamp: timestamp,
                             actor: actor, correlationId: correlationId, causationId: causationId,
                             schemaVersion: schema, event: event)
    }

    /// An event's `data` in the layout `FlowJSON.writeEventData` writes for its type (its members
    /// in that order, `null` for an absent optional one), checked by the same helpers as
    /// `dataFields`; `nil` for anything else.
    private static func canonicalData(_ tag: EventTag, _ scanner: inout JSONScanner) -> AppEvent? {
        func key(_ fragment: StaticString) -> Bool { scanner.literal(fragment) }
        func id() -> String? { try? identifier(&scanner, "") }
        func int() -> Int? { scanner.integer() }
        func text() -> String? { try? freeText(&scanner, "") }
        let event: AppEvent
        switch tag {
        case .productAdded:
            guard key(#"{"productId":"#), let productId = id(), key(#","name":"#), let name = text(),
                  key(#","unitPrice":"#), let unitPrice = int(), key(#","quantity":"#), let quantity = int() else { return nil }
            event = .cart(.productAdded(productId: productId, name: name, unitPrice: unitPrice, quantity: quantity))
        case .productRemoved:
            guard key(#"{"productId":"#), let productId = id(), key(#","quantity":"#), let quantity = int() else { return nil }
            event = .cart(.productRemoved(productId: productId, quantity: quantity))
        case .discountApplied:
            guard key(#"{"discountId":"#), let discountId = id(), key(#","percent":"#), let percent = int(),
                  key(#","productId":"#) else { return nil }
            var productId: String?
            if !key("null") {
                guard let id = id() else { return nil }
                productId = id
            }
            event = .cart(.discountApplied(discountId: discountId, percent: percent, productId: productId))
        case .discountRemoved:
            guard key(#"{"discountId":"#), let discountId = id() else { return nil }
            event = .cart(.discountRemoved(discountId: discountId))
        case .checkoutStarted:
            guard key(#"{"total":"#), let total = int(), key(#","itemCount":"#), let itemCount = int() else { return nil }
            event = .cart(.checkoutStarted(total: total, itemCount: itemCount))
        case .orderPlaced:
            guard key(#"{"orderId":"#), let orderId = id(), key(#","total":"#), let total = int(),
                  key(#","itemCount":"#), let itemCount = int() else { return nil }
            event = .cart(.orderPlaced(orderId: orderId, total: total, itemCount: itemCount))
        case .paymentFailed:
            guard key(#"{"reason":"#), let reason = text() else { return nil }
            event = .cart(.paymentFailed(reason: reason))
        case .appLaunched:
            guard key(#"{"hasOnboarded":"#), let hasOnboarded = scanner.bool() else { return nil }
            event = .navigation(.appLaunched(hasOnboarded: hasOnboarded))
        case .tabSelected:
            guard key(#"{"tab":"#), let tab = int() else { return nil }
            event = .navigation(.tabSelected(tab))
        case .signUpStarted, .logInStarted, .onboardingAdvanced, .onboardingWentBack, .onboardingFinished,
             .loginSucceeded, .loginCancelled, .modalPresented, .modalDismissed:
            // Fieldless: `event(_:_:)` maps the tag, and the empty object is all there is to read.
            guard key("{}"), let fieldless = try? Self.event(tag, DataFields()) else { return nil }
            return fieldless
        }
        return key("}") ? event : nil
    }

    /// Any valid layout: members in any order, whitespace, `null` for absent, unknown members.
    static func general(_ line: UnsafeRawBufferPointer) throws -> RecordedEvent {
        var scanner = JSONScanner(line)
        guard scanner.peek() == UInt8(ascii: "{") else { throw Problem(message: "it is not a JSON object") }
        try scanner.beginObject()
        var position: Int?, version: Int?, schemaVersion: Int?
        var stream: String?, correlationId: String?, causationId: String?
        var eventId: EventID?, timestamp: Timestamp?, actor: Actor?, tag: EventTag?, typeText: String?
        var data: DataFields?
        var first = true
        while let key = try scanner.nextKey(first: &first) {
            if key.equals("position") { position = try integer(&scanner, "position") }
            else if key.equals("stream") { stream = try identifier(&scanner, "stream") }
            else if key.equals("version") { version = try integer(&scanner, "version") }
            else if key.equals("eventId") {
                guard let raw = scanner.plainStringBytes(), let id = EventID.parse(raw) else { throw Problem(message: "\"eventId\" is not a UUID") }
                eventId = id
            } else if key.equals("type") {
                guard let raw = scanner.plainStringBytes() else { throw Problem(message: "\"type\" must be a string") }
                tag = EventTag(typeName: raw)
                typeText = tag == nil ? String(decoding: raw.prefix(60), as: UTF8.self) : nil
            } else if key.equals("actor") {
                let raw = scanner.plainStringBytes()
                actor = raw.map { $0.equals("user") ? .user : $0.equals("system") ? .system : nil } ?? nil
                guard actor != nil else { throw Problem(message: "\"actor\" must be \"user\" or \"system\"") }
            } else if key.equals("timestamp") {
                guard let raw = scanner.plainStringBytes(),
                      let parsed = Timestamp.parseRFC3339(raw)
                else { throw Problem(message: "\"timestamp\" is not an RFC 3339 time such as 2026-11-21T13:25:17.123456Z") }
                timestamp = parsed
            } else if key.equals("schemaVersion") { schemaVersion = scanner.takeNull() ? nil : try integer(&scanner, "schemaVersion") }
            else if key.equals("correlationId") { correlationId = scanner.takeNull() ? nil : try identifier(&scanner, "correlationId") }
            else if key.equals("causationId") { causationId = scanner.takeNull() ? nil : try identifier(&scanner, "causationId") }
            else if key.equals("data") { data = try dataFields(&scanner) }
            else { _ = try scanner.value() }
        }
        guard scanner.atEnd() else { throw JSONSyntaxError(offset: scanner.offset, reason: "unexpected text after the JSON value") }
        guard let position else { throw Problem(message: "\"position\" is missing") }
        guard position >= 1 else { throw Problem(message: "\"position\" \(position) is out of range") }
        guard let stream else { throw Problem(message: "\"stream\" is missing") }
        guard let version else { throw Problem(message: "\"version\" is missing") }
        guard version >= 1 else { throw Problem(message: "\"version\" \(version) is out of range") }
        guard let eventId else { throw Problem(message: "\"eventId\" is missing") }
        guard let actor else { throw Problem(message: "\"actor\" is missing") }
        guard let timestamp else { throw Problem(message: "\"timestamp\" is missing") }
        guard let tag else {
            throw Problem(message: typeText.map { "\"type\" \"\($0)\" is not an event type; the types are \(ExportFilter.eventTypes.joined(separator: ", "))" } ?? "\"type\" is missing")
        }
        let schema = schemaVersion ?? RecordCodec.currentSchemaVersion
        guard (1...RecordCodec.currentSchemaVersion).contains(schema) else {
            throw Problem(message: "\"schemaVersion\" \(schema) is not one this FlowLog reads (1 through \(RecordCodec.currentSchemaVersion))")
        }
        guard let data else { throw Problem(message: "\"data\" must be an object") }
        return RecordedEvent(position: position, stream: stream, version: version, eventId: eventId, timestamp: timestamp,
                             actor: actor, correlationId: correlationId, causationId: causationId,
                             schemaVersion: schema, event: try event(tag, data))
    }

    private static func integer(_ scanner: inout JSONScanner, _ name: String) throws -> Int {
        guard let value = scanner.integer() else { throw Problem(message: "\"\(name)\" must be an integer") }
        return value
    }

    /// Free text (a name, a reason): a string of at most 65,535 UTF-8 bytes, as records store it.
    private static func freeText(_ scanner: inout JSONScanner, _ name: String) throws -> String {
        guard let value = try scanner.string() else { throw Problem(message: "\"\(name)\" must be a string") }
        guard value.utf8.count <= Int(UInt16.max) else { throw Problem(message: "\"\(name)\" is longer than 65,535 bytes") }
        return value
    }

    private static func identifier(_ scanner: inout JSONScanner, _ name: String) throws -> String {
        guard let raw = scanner.plainStringBytes(), raw.count >= 1, raw.count <= Identifier.maximumLength, raw.allSatisfy(Identifier.isAllowed) else {
            throw Problem(message: "\"\(name)\" is not an identifier (1 to 64 of A-Z a-z 0-9 . _ : -)")
        }
        return String(decoding: raw, as: UTF8.self)
    }

    private static func dataFields(_ scanner: inout JSONScanner) throws -> DataFields {
        guard scanner.peek() == UInt8(ascii: "{") else { throw Problem(message: "\"data\" must be an object") }
        try scanner.beginObject()
        var fields = DataFields()
        var first = true
        func text(_ name: String) throws -> String? { scanner.takeNull() ? nil : try freeText(&scanner, name) }
        func id(_ name: String) throws -> String? { scanner.takeNull() ? nil : try identifier(&scanner, name) }
        func int(_ name: String) throws -> Int? { scanner.takeNull() ? nil : try integer(&scanner, name) }
        while let key = try scanner.nextKey(first: &first) {
            if key.equals("productId") { fields.productId = try id("productId") }
            else if key.equals("name") { fields.name = try text("name") }
            else if key.equals("unitPrice") { fields.unitPrice = try int("unitPrice") }
            else if key.equals("quantity") { fields.quantity = try int("quantity") }
            else if key.equals("discountId") { fields.discountId = try id("discountId") }
            else if key.equals("percent") { fields.percent = try int("percent") }
            else if key.equals("orderId") { fields.orderId = try id("orderId") }
            else if key.equals("total") { fields.total = try int("total") }
            else if key.equals("itemCount") { fields.itemCount = try int("itemCount") }
            else if key.equals("reason") { fields.reason = try text("reason") }
            else if key.equals("hasOnboarded") {
                if scanner.takeNull() { fields.hasOnboarded = nil } else {
                    guard let flag = scanner.bool() else { throw Problem(message: "\"hasOnboarded\" must be true or false") }
                    fields.hasOnboarded = flag
                }
            } else if key.equals("tab") { fields.tab = try int("tab") }
            else { _ = try scanner.value() }
        }
        return fields
    }

    private static func event(_ tag: EventTag, _ data: DataFields) throws(Problem) -> AppEvent {
        func need<T>(_ value: T?, _ name: String) throws(Problem) -> T {
            guard let value else { throw Problem(message: "\"\(name)\" is missing") }
            return value
        }
        // Events are facts: a value today's rules would refuse (a 150% discount an older build let
        // through) is still read, so that replay and bisect can show what it did.
        func amount(_ value: Int?, _ name: String) throws(Problem) -> Int { try need(value, name) }
        switch tag {
        case .productAdded:
            return .cart(.productAdded(productId: try need(data.productId, "productId"), name: try need(data.name, "name"),
                                       unitPrice: try amount(data.unitPrice, "unitPrice"), quantity: try amount(data.quantity, "quantity")))
        case .productRemoved:
            return .cart(.productRemoved(productId: try need(data.productId, "productId"), quantity: try amount(data.quantity, "quantity")))
        case .discountApplied:
            return .cart(.discountApplied(discountId: try need(data.discountId, "discountId"), percent: try need(data.percent, "percent"),
                                          productId: data.productId))
        case .discountRemoved:
            return .cart(.discountRemoved(discountId: try need(data.discountId, "discountId")))
        case .checkoutStarted:
            return .cart(.checkoutStarted(total: try amount(data.total, "total"), itemCount: try amount(data.itemCount, "itemCount")))
        case .orderPlaced:
            return .cart(.orderPlaced(orderId: try need(data.orderId, "orderId"), total: try amount(data.total, "total"),
                                      itemCount: try amount(data.itemCount, "itemCount")))
        case .paymentFailed:
            return .cart(.paymentFailed(reason: try need(data.reason, "reason")))
        case .appLaunched:
            return .navigation(.appLaunched(hasOnboarded: try need(data.hasOnboarded, "hasOnboarded")))
        case .tabSelected:
            return .navigation(.tabSelected(try need(data.tab, "tab")))
        case .signUpStarted: return .navigation(.signUpStarted)
        case .logInStarted: return .navigation(.logInStarted)
        case .onboardingAdvanced: return .navigation(.onboardingAdvanced)
        case .onboardingWentBack: return .navigation(.onboardingWentBack)
        case .onboardingFinished: return .navigation(.onboardingFinished)
        case .loginSucceeded: return .navigation(.loginSucceeded)
        case .loginCancelled: return .navigation(.loginCancelled)
        case .modalPresented: return .navigation(.modalPresented)
        case .modalDismissed: return .navigation(.modalDismissed)
        }
    }
}
