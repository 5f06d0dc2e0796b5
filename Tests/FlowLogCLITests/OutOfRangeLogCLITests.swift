import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

/// Numbers from outside, through the built binary: a command's number beyond 64 bits is answered
/// with its field's code, an export's is refused by `import`, and `Fixtures/logs/out-of-range-import`
/// (a log whose import by an earlier build clamped such numbers into its records) is named by
/// position by every reader, never folded into a trap.
@Suite("Numbers out of range, from the command line")
struct OutOfRangeLogCLITests {
    private static let hugePrice = #"{"type":"cart.addProduct","stream":"s","productId":"p","unitPrice":99999999999999999999,"quantity":1}"#

    private func run(_ arguments: [String], stdin: String? = nil, expecting status: Int32) throws -> FlowLogProcess.Result {
        let result = try FlowLogProcess.run(arguments, stdin: stdin)
        #expect(result.status == status, "flowlog \(arguments.joined(separator: " ")): exit \(result.status): \(result.stderr)")
        return result
    }

    @Test func sendAnswersAHugeNumberWithItsFieldsCodeAndAppendsNothing() throws {
        let scratch = TemporaryDirectory()
        let db = scratch.child("log")
        let negative = Self.hugePrice.replacingOccurrences(of: "99999999999999999999", with: "-99999999999999999999")
        let quantity = #"{"type":"cart.addProduct","stream":"s","productId":"p","unitPrice":100,"quantity":123456789012345678901234567890}"#
        let result = try run(["send", "--db", db], stdin: [Self.hugePrice, negative, quantity].joined(separator: "\n") + "\n", expecting: 1)
        let answers = try result.stdoutLines.map { try JSONParser.parse($0) }
        #expect(answers.map { $0["error"]?["code"] } == [.string("invalidPrice"), .string("invalidPrice"), .string("invalidQuantity")])
        #expect(result.stdoutLines[0].contains("99999999999999999999 cents is out of range"))
        #expect(!FileManager.default.fileExists(atPath: db), "a send whose every command was refused creates no log")
    }

    @Test func importRefusesAnExportedNumberOutOfRangeNamingTheLine() throws {
        let scratch = TemporaryDirectory()
        let db = scratch.child("log")
        let source = FlowLogProcess.fixtures.appendingPathComponent("logs/out-of-range-import.ndjson").path
        let result = try run(["import", source, "--db", db], expecting: 65)
        #expect(result.stderr.contains("Line 4 of the import cannot be taken"), "\(result.stderr)")
        #expect(result.stderr.contains("\"unitPrice\" is 99999999999999999999, out of range (invalidPrice)"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db + "/data.mdb"))
    }

    /// The log as the earlier build left it: intact to its chain, but position 4 holds a unit price
    /// of Int.max and a quantity of Int.min.
    @Test func everyReaderNamesThePositionOfAStoredValueOutOfRange() throws {
        let scratch = TemporaryDirectory()
        let db = scratch.child("log")
        try FileManager.default.copyItem(atPath: FlowLogProcess.fixtures.appendingPathComponent("logs/out-of-range-import").path, toPath: db)
        let verify = try run(["verify", "--db", db], expecting: 65)
        #expect(verify.stdout.contains("position 4 (stream session-1)"), "\(verify.stdout)")
        #expect(verify.stdout.contains("\"unitPrice\" is 9223372036854775807, out of range (invalidPrice)"), "\(verify.stdout)")
        for arguments in [
            ["state", "--stream", "session-1"], ["state", "--stream", "session-1", "--at", "4"], ["export"],
            ["export", "--format", "csv"], ["replay", "--summary"], ["replay", "--verify"], ["log"],
        ] {
            let result = try run(arguments + ["--db", db], expecting: 65)
            #expect(result.stderr.contains("position 4"), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("holds a value out of range"), "\(arguments): \(result.stderr)")
        }
        // What comes before it, and other streams, still read.
        let before = try run(["state", "--stream", "session-1", "--at", "3", "--format", "json", "--db", db], expecting: 0)
        #expect(try JSONParser.parse(before.stdout)["cart"]?["subtotal"] == .integer(2500))
        let other = try run(["state", "--stream", "session-2", "--format", "json", "--db", db], expecting: 0)
        #expect(try JSONParser.parse(other.stdout)["cart"]?["status"] == .string("checkingOut"))
    }
}
