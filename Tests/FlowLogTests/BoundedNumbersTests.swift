import Deciding
import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Testing

@testable import FlowLog

/// Every integer is bounded where it enters (SPEC §3 and §6): a command's number beyond 64 bits is
/// refused with its field's own code by both readers, an event's value outside its field's recorded
/// range by every reader of events, and nothing is ever clamped.
@Suite("Numbers are bounded where they enter")
struct BoundedNumbersTests {
    private static let huge = "99999999999999999999"

    private func bothReaders(_ line: String) -> (common: CommandEnvelope?, general: Result<CommandEnvelope, WireRejection>) {
        var copy = line
        return copy.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            return (WireCommand.decodeCommonForm(raw), WireCommand.decode(raw))
        }
    }

    @Test(arguments: [
        (#"{"type":"cart.addProduct","productId":"p","unitPrice":N,"quantity":1}"#, RejectionCode.invalidPrice),
        (#"{"type":"cart.addProduct","productId":"p","unitPrice":100,"quantity":N}"#, .invalidQuantity),
        (#"{"type":"cart.removeProduct","productId":"p","quantity":N}"#, .invalidQuantity),
        (#"{"type":"cart.changeQuantity","productId":"p","quantity":N}"#, .invalidQuantity),
        (#"{"type":"cart.applyDiscount","discountId":"D","percent":N}"#, .invalidPercent),
        (#"{"type":"cart.applyDiscount","discountId":"D","amountOff":N}"#, .invalidAmount),
        (#"{"type":"home.selectTab","tab":N}"#, .invalidTab),
        (#"{"type":"cart.checkout","expectedVersion":N}"#, .malformedCommand),
    ])
    func aNumberBeyond64BitsIsRefusedWithItsFieldsCodeByBothReaders(template: String, code: RejectionCode) {
        for number in [Self.huge, "-" + Self.huge, "9223372036854775808", "-9223372036854775809"] {
            let line = template.replacingOccurrences(of: "N", with: number)
            let (common, general) = bothReaders(line)
            #expect(common == nil, "\(line)")
            guard case .failure(let failure) = general else {
                Issue.record("accepted: \(line)")
                continue
            }
            #expect(failure.rejection.code == code, "\(line)")
            #expect(failure.rejection.message.contains(number), "\(failure.rejection.message)")
        }
    }

    /// Within 64 bits but out of range: read as written by both readers, then refused by the field
    /// checks as before (the same answers as every earlier build).
    @Test func aLongNumberWithin64BitsIsReadAndLeftToTheFieldChecks() throws {
        for number in ["999999999999999999", "1000000000000000000", "-9223372036854775808", "9223372036854775807"] {
            let line = #"{"type":"cart.addProduct","productId":"p","unitPrice":"# + number + #","quantity":1}"#
            let (common, general) = bothReaders(line)
            let envelope = try general.get()
            if let common { #expect(common == envelope) }
            #expect(envelope.command.fieldViolation?.code == .invalidPrice)
            #expect(envelope.command.fieldViolation?.message.contains(number) == true)
        }
    }

    @Test func theJSONParserKeepsIntegersBeyond64BitsAsTheirDigits() throws {
        #expect(try JSONParser.parse(Self.huge) == .bigInteger(Self.huge))
        #expect(try JSONParser.parse("-" + Self.huge) == .bigInteger("-" + Self.huge))
        #expect(try JSONParser.parse("9223372036854775807") == .integer(Int.max))
        #expect(try JSONParser.parse("-9223372036854775808") == .integer(Int.min))
        #expect(try JSONParser.parse("9223372036854775808") == .bigInteger("9223372036854775808"))
        var json = JSONWriter()
        json.value(try JSONParser.parse(#"{"a":\#(Self.huge)}"#))
        #expect(json.text == #"{"a":\#(Self.huge)}"#)
    }

    private func exportedLine(_ data: String, position: String = "4", version: String = "3") -> String {
        #"{"position":\#(position),"stream":"s","version":\#(version),"eventId":"01a2338a-59a7-7b28-8c8d-d9e0c6c83caa","type":"cart.productAdded","actor":"user","timestamp":"2026-12-01T21:37:14.663296Z","schemaVersion":1,"eventVersion":2,"data":{\#(data)}}"#
    }

    private func importProblem(_ line: String) -> String? {
        var copy = line
        return copy.withUTF8 { bytes -> String? in
            do throws(RecordedEventJSON.Problem) {
                _ = try RecordedEventJSON.decode(UnsafeRawBufferPointer(bytes))
                return nil
            } catch {
                return error.message
            }
        }
    }

    @Test(arguments: [
        (
            #""productId":"p","name":"Cap","unitPrice":99999999999999999999,"quantity":1,"currency":"USD""#,
            "\"unitPrice\" is 99999999999999999999, out of range (invalidPrice)"
        ),
        (
            #""productId":"p","name":"Cap","unitPrice":9223372036854775807,"quantity":1,"currency":"USD""#,
            "\"unitPrice\" is 9223372036854775807, out of range (invalidPrice)"
        ),
        (
            #""productId":"p","name":"Cap","unitPrice":-9990000000001,"quantity":1,"currency":"USD""#,
            "\"unitPrice\" is -9990000000001, out of range (invalidPrice)"
        ),
        (
            #""productId":"p","name":"Cap","unitPrice":900,"quantity":-99999999999999999999,"currency":"USD""#,
            "\"quantity\" is -99999999999999999999, out of range (invalidQuantity)"
        ),
        (#""productId":"p","name":"Cap","unitPrice":900,"quantity":0,"currency":"USD""#, "\"quantity\" is 0, out of range (invalidQuantity)"),
        (#""productId":"p","name":"Cap","unitPrice":900,"quantity":1000,"currency":"USD""#, "\"quantity\" is 1000, out of range (invalidQuantity)"),
        // States keep a currency in a short string: one of 300 bytes trapped there once it was imported.
        (
            #""productId":"p","name":"Cap","unitPrice":900,"quantity":1,"currency":""# + String(repeating: "X", count: 300) + "\"",
            "not an ISO 4217 currency code (invalidCurrency)"
        ),
        (#""productId":"p","name":"Cap","unitPrice":900,"quantity":1,"currency":"""#, "\"currency\" is \"\", not an ISO 4217 currency code"),
    ])
    func anExportedEventOutOfItsFieldsRecordedRangeIsRefusedByName(data: String, problem: String) {
        let message = importProblem(exportedLine(data))
        #expect(message?.contains(problem) == true, "\(message ?? "accepted")")
    }

    @Test func theLargestRecordedValuesAreRead() {
        let data = #""productId":"p","name":"Cap","unitPrice":9990000000000,"quantity":999,"currency":"USD""#
        #expect(importProblem(exportedLine(data)) == nil)
        #expect(importProblem(exportedLine(data, position: "9007199254740991", version: "9007199254740991")) == nil)
    }

    @Test(arguments: ["99999999999999999999", "9007199254740992", "0", "-1"])
    func positionsAndVersionsOutOfRangeAreRefused(number: String) {
        let data = #""productId":"p","name":"Cap","unitPrice":900,"quantity":1,"currency":"USD""#
        #expect(importProblem(exportedLine(data, position: number))?.contains("\"position\"") == true)
        #expect(importProblem(exportedLine(data, version: number))?.contains("\"version\"") == true)
    }

    /// No rule makes a discount of both kinds, but a recorded event may hold one: a snapshot of it
    /// reads back as its fold, percent and amount (it kept the amount alone).
    @Test func aDiscountOfBothKindsReadsBackFromAStateAsItWasFolded() {
        var state = FlowState()
        FlowDecider.evolve(&state, .cart(.productAdded(.init(productId: "p", name: "Cap", unitPrice: 900, quantity: 1))))
        FlowDecider.evolve(&state, .cart(.discountApplied(.init(discountId: "D", percent: 513, amountOff: 1, productId: "p"))))
        FlowDecider.evolve(&state, .cart(.discountApplied(.init(discountId: "C", percent: 7, amountOff: 0, productId: nil))))
        var writer = BinaryWriter()
        FlowDecider.encode(state, withoutKeptRows: false, into: &writer)
        let read = writer.bytes.withUnsafeBytes { FlowDecider.decodeState($0) }
        #expect(read == state)
        #expect(read?.cart.lines.first?.discount == Discount(id: "D", percent: 513, amountOff: 1))
    }

    /// What an earlier build's import stored unchecked: read back, it is named, not folded, and
    /// not called damaged.
    @Test func aRecordHoldingAnOutOfRangeValueIsNamedNotCalledDamaged() throws {
        let event = AppEvent.cart(.productAdded(.init(productId: "p", name: "Cap", unitPrice: Int.max, quantity: 1)))
        var writer = BinaryWriter()
        _ = RecordCodec.encode(sampleRecord(event, position: 1), previousHash: RecordCodec.genesisHash, into: &writer)
        let bytes = writer.bytes
        do {
            _ = try bytes.withUnsafeBytes { try RecordCodec.decode($0, expectedPosition: 1, previousHash: RecordCodec.genesisHash) }
            Issue.record("decoded a unit price of Int.max")
        } catch let error as RecordDamage {
            #expect(error.outOfRange?.field == "unitPrice")
            #expect(error.outOfRange?.value == String(Int.max))
            #expect(error.description.contains("holds a value out of range"))
            #expect(!error.description.contains("damaged"))
        } catch {
            Issue.record("\(error)")
        }
    }
}
