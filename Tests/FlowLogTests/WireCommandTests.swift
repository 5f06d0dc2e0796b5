import Deciding
import FlowDomain
import FlowLog
import FlowLogBasics
import Testing

@Suite("JSON parsing")
struct JSONParserTests {
    @Test func parsesNestedValuesAndKeepsIntegersApart() throws {
        let value = try JSONParser.parse(#" {"a":[1,-2,3.5,1e2,true,false,null],"b":{"c":"\u00e9\n\"\ud83d\ude00"}} "#)
        #expect(value["a"] == .array([.integer(1), .integer(-2), .number(3.5), .number(100), .bool(true), .bool(false), .null]))
        #expect(value["b"]?["c"] == .string("é\n\"😀"))
    }

    /// Clamped to `Int.max` once, which an import then stored as if it had been given it.
    @Test func keepsIntegersBeyond64BitsAsTheirDigits() throws {
        #expect(try JSONParser.parse("123456789012345678901234567890") == .bigInteger("123456789012345678901234567890"))
        #expect(try JSONParser.parse("-123456789012345678901234567890") == .bigInteger("-123456789012345678901234567890"))
    }

    @Test(arguments: ["", "{", "{\"a\":}", "[1,]", "01", "\"\\x\"", "\"a", "{\"a\" 1}", "tru", "{} {}", "\"\\ud800\"", "\"\u{01}\"", "1.", "-"])
    func refusesInvalidJSON(text: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(text) }
    }

    /// `1e999` is no double: kept as infinity, it was echoed back (`meta`, recorded states) as `inf`.
    @Test(arguments: ["1e999", "-1e999", "[1E400]"])
    func refusesNumbersBeyondADouble(text: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(text) }
    }

    @Test func refusesDeepNesting() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(String(repeating: "[", count: 10_000)) }
    }

    @Test func refusesInvalidUTF8() {
        let bytes: [UInt8] = [0x22, 0xFF, 0xFE, 0x22]
        #expect(throws: JSONSyntaxError.self) { try bytes.withUnsafeBytes { try JSONParser.parse($0) } }
    }
}

@Suite("The wire form of commands (SPEC §2)")
struct WireCommandTests {
    private func code(_ line: String) -> RejectionCode? {
        if case .failure(let failure) = WireCommand.decode(line) { return failure.rejection.code }
        return nil
    }

    @Test func decodesEveryCommandTypeAndEncodesItBack() throws {
        let envelopes: [CommandEnvelope] = [
            .init(
                stream: "s1", commandId: "c1", expectedVersion: 0, correlationId: "k",
                command: .cart(.addProduct(.init(productId: "p1", name: "Mug", unitPrice: 1250, quantity: 2)))),
            .init(command: .cart(.addProduct(.init(productId: "p1", name: nil, unitPrice: 0, quantity: 1)))),
            .init(command: .cart(.removeProduct(.init(productId: "p1", quantity: nil)))),
            .init(command: .cart(.removeProduct(.init(productId: "p1", quantity: 2)))),
            .init(command: .cart(.changeQuantity(.init(productId: "p1", quantity: 3)))),
            .init(command: .cart(.applyDiscount(.init(discountId: "D", percent: 10, productId: "p1")))),
            .init(command: .cart(.applyDiscount(.init(discountId: "D", percent: 10, productId: nil)))),
            .init(command: .cart(.removeDiscount(.init(discountId: "D")))),
            .init(command: .cart(.checkout)),
            .init(command: .payment(.succeeded(.init(orderId: "o1")))),
            .init(command: .payment(.failed(.init(reason: "no")))),
            .init(command: .app(.launched(.init(hasOnboarded: true)))),
            .init(command: .welcome(.signUp)), .init(command: .welcome(.logIn)),
            .init(command: .onboarding(.next)), .init(command: .onboarding(.back)), .init(command: .onboarding(.finish)),
            .init(command: .login(.succeeded)), .init(command: .login(.cancel)),
            .init(command: .home(.selectTab(.init(tab: 1)))), .init(command: .home(.presentModal)), .init(command: .modal(.dismiss)),
        ]
        #expect(Set(envelopes.map(\.command.typeName)) == Set(WireCommand.allTypes))
        for envelope in envelopes {
            #expect(try WireCommand.decode(WireCommand.encode(envelope)).get() == envelope)
        }
    }

    @Test func theStreamDefaultsToDefault() throws {
        #expect(try WireCommand.decode(#"{"type":"cart.checkout"}"#).get().stream == "default")
    }

    @Test func nullMeansAbsentForOptionalFields() throws {
        let envelope = try WireCommand.decode(#"{"type":"cart.removeProduct","productId":"p","quantity":null,"id":null}"#).get()
        #expect(envelope.command == .cart(.removeProduct(.init(productId: "p", quantity: nil))))
        #expect(envelope.commandId == nil)
    }

    @Test(arguments: [
        "[]", "42", "\"cart.checkout\"", "not json", "{\"type\":\"cart.checkout\"", "",
        #"{"stream":"s"}"#,  // no type
        #"{"type":7}"#,  // type of the wrong type
        #"{"type":"cart.addProduct","productId":"p","quantity":1}"#,  // no unitPrice
        #"{"type":"cart.addProduct","productId":"p","unitPrice":12.5,"quantity":1}"#,
        #"{"type":"cart.addProduct","productId":"p","unitPrice":"1250","quantity":1}"#,
        #"{"type":"cart.addProduct","productId":1,"unitPrice":1250,"quantity":1}"#,
        #"{"type":"cart.addProduct","productId":"p","unitPrice":1250,"quantity":true}"#,
        #"{"type":"cart.addProduct","productId":"p","unitPrice":1250,"quantity":1,"name":5}"#,
        #"{"type":"cart.checkout","stream":5}"#,
        #"{"type":"cart.checkout","id":5}"#,
        #"{"type":"cart.checkout","expectedVersion":"1"}"#,
        #"{"type":"cart.checkout","expectedVersion":1.0}"#,
        #"{"type":"app.launched"}"#,
        #"{"type":"app.launched","hasOnboarded":"yes"}"#,
        #"{"type":"home.selectTab","tab":null}"#,
        #"{"type":"payment.failed"}"#,
    ])
    func malformedLines(line: String) {
        #expect(code(line) == .malformedCommand)
    }

    /// `1e2` is a hundred and `2.0` two, but neither is written as an integer: the message says so,
    /// and how to write one (it said "a number with a fraction", which 1e2 is not).
    @Test(arguments: ["1e2", "2.0", "1E+2", "12.5"])
    func aNumberThatIsNotAnIntegerLiteralSaysWhatIsAccepted(literal: String) {
        guard case .failure(let failure) = WireCommand.decode(#"{"type":"cart.addProduct","productId":"p","unitPrice":\#(literal),"quantity":1}"#)
        else {
            Issue.record("\(literal) was accepted")
            return
        }
        #expect(failure.rejection.code == .malformedCommand)
        #expect(
            failure.rejection.message
                == #""unitPrice" must be an integer, not a number written with a decimal point or an exponent; write it in digits only, such as 12 (not 12.0 or 1.2e1)."#
        )
    }

    @Test func unknownTypesAreUnknownCommands() {
        #expect(code(#"{"type":"cart.explode"}"#) == .unknownCommand)
        #expect(code(#"{"type":""}"#) == .unknownCommand)
    }

    @Test func theStreamIsReportedWhenItCouldBeRead() {
        guard case .failure(let failure) = WireCommand.decode(#"{"type":"nope","stream":"s9"}"#) else {
            Issue.record("expected failure")
            return
        }
        #expect(failure.stream == "s9")
        guard case .failure(let other) = WireCommand.decode("[1]") else {
            Issue.record("expected failure")
            return
        }
        #expect(other.stream == nil)
    }

    @Test func theLastRepeatedMemberCountsAndMetaIsCarriedAlong() throws {
        let envelope = try WireCommand.decode(#"{"type":"home.selectTab","tab":0,"meta":{"x":[1]},"tab":1}"#).get()
        #expect(envelope.command == .home(.selectTab(.init(tab: 1))))
    }

    /// A build that ignored a member it did not know recorded a euro product as dollars: a member
    /// the kind does not declare is refused, naming it.
    @Test func aMemberTheKindDoesNotDeclareIsMalformedAndNamed() {
        guard case .failure(let failure) = WireCommand.decode(#"{"type":"home.selectTab","tab":0,"extra":{"x":[1]}}"#) else {
            Issue.record("an undeclared member was accepted")
            return
        }
        #expect(failure.rejection.code == .malformedCommand)
        #expect(failure.rejection.message.contains(#"no member "extra""#))
        #expect(failure.rejection.message.contains(#""tab""#))
        #expect(code(#"{"type":"cart.checkout","meta":[1]}"#) == .malformedCommand)
        let large = String(repeating: "x", count: 4_100)
        #expect(code(#"{"type":"cart.checkout","meta":{"note":"\#(large)"}}"#) == .malformedCommand)
        #expect(code(#"{"type":"cart.checkout","meta":{"note":"short"}}"#) == nil)
    }
}
