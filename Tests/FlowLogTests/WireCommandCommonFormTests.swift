import FlowDomain
import FlowLogTesting
import Testing

@testable import FlowLog

/// `WireCommand.decodeCommonForm` may only ever agree with the general reader: whatever line it
/// accepts, the general reader accepts as the same envelope, and everything else it leaves alone.
@Suite("The wire form's common-form reader")
struct WireCommandCommonFormTests {
    private func commonForm(_ line: String) -> CommandEnvelope? {
        var copy = line
        return copy.withUTF8 { WireCommand.decodeCommonForm(UnsafeRawBufferPointer($0)) }
    }

    private func generally(_ line: String) -> Result<CommandEnvelope, WireRejection> {
        var copy = line
        return copy.withUTF8 { WireCommand.decodeGenerally(UnsafeRawBufferPointer($0)) }
    }

    /// Lines of every kind, with and without each envelope member.
    private func lines(count: Int, seed: UInt64) -> [String] {
        var rng = SplitMix64(seed: seed)
        let commands = RandomCommands()
        return (0..<count).map { number in
            let envelope = CommandEnvelope(
                stream: number % 5 == 0 ? "default" : "session-\(number % 7)",
                commandId: number % 3 == 0 ? "c-\(number)" : nil,
                expectedVersion: number % 4 == 0 ? number % 9 : nil,
                correlationId: number % 6 == 0 ? "k.\(number)" : nil,
                command: commands.command(using: &rng))
            return WireCommand.encode(envelope)
        }
    }

    @Test func readsEveryKindsCommonLinesAsTheGeneralReaderDoes() throws {
        var read = 0
        var seen = Set<AppCommand.Kind>()
        for line in lines(count: 3_000, seed: 17) {
            let general = try generally(line).get()
            guard let common = commonForm(line) else { continue }
            #expect(common == general, "\(line)")
            seen.insert(common.command.kind)
            read += 1
        }
        // Random names with quotes or control characters need escapes, which the general reader takes.
        #expect(read > 2_500)
        #expect(seen.count == CommandKinds.all.count)
    }

    @Test func readsSpacingUnicodeAndMemberOrderLikeTheGeneralReader() throws {
        let lines = [
            #"{"type":"cart.addProduct","stream":"s1","productId":"p1","name":"Café ☕","unitPrice":350,"quantity":2}"#,
            #"  { "quantity" : 2 , "unitPrice":0,"productId":"p1" ,"type":"cart.addProduct"}  "#,
            #"{"type":"app.launched","hasOnboarded":false,"expectedVersion":0,"id":"a","correlationId":"k"}"#,
            #"{"type":"home.selectTab","tab":-3}"#,
            "{\"type\":\"cart.checkout\"}\r\n",
            // Integers read by the lexer every JSON reader shares: up to 64 bits, as the tree holds them.
            #"{"type":"home.selectTab","tab":1234567890123456789}"#,
            #"{"type":"home.selectTab","tab":9223372036854775807}"#,
            #"{"type":"home.selectTab","tab":-9223372036854775807}"#,
        ]
        for line in lines {
            let common = try #require(commonForm(line), "\(line)")
            #expect(common == (try generally(line).get()))
        }
    }

    /// Lines the common form does not hold go to the general reader, which words the answer.
    @Test(arguments: [
        #"{"type":"cart.addProduct","productId":"p1","name":"a\"b","unitPrice":1,"quantity":1}"#,
        #"{"type":"cart.addProduct","productId":"p1","name":null,"unitPrice":1,"quantity":1}"#,
        #"{"type":"cart.checkout","meta":{"a":1}}"#,
        #"{"type":"cart.checkout","type":"cart.checkout"}"#,
        #"{"type":"home.selectTab","tab":1.0}"#,
        #"{"type":"home.selectTab","tab":1e2}"#,
        #"{"type":"home.selectTab","tab":01}"#,
        #"{"type":"home.selectTab","tab":9223372036854775808}"#,
        #"{"type":"home.selectTab","tab":-9223372036854775809}"#,
        #"{"type":"home.selectTab","tab":-"}"#,
        #"{"type":"cart.checkout","colour":"red"}"#,
        #"{"type":"cart.nothing"}"#,
        #"{"type":"cart.addProduct","productId":"p1"}"#,
        #"{"type":"cart.checkout"} x"#,
        #"{"type":"cart.checkout","stream":7}"#,
        #"["type"]"#, "{}", "",
    ])
    func leavesOtherLinesToTheGeneralReader(line: String) {
        #expect(commonForm(line) == nil)
    }

    /// Every line a byte away from a valid one: whatever the common form accepts, the general
    /// reader accepts as the same envelope.
    @Test func neverAcceptsALineTheGeneralReaderReadsOtherwise() {
        var rng = SplitMix64(seed: 23)
        let inserted = Array(#"{}[]":,\ 0123456789-.eEtfnul"#.utf8)
        var accepted = 0
        for line in lines(count: 300, seed: 29) {
            let bytes = Array(line.utf8)
            for _ in 0..<40 {
                var mutated = bytes
                let at = Int.random(in: 0..<mutated.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: mutated.remove(at: at)
                case 1: mutated.insert(inserted.randomElement(using: &rng)!, at: at)
                default: mutated[at] = inserted.randomElement(using: &rng)!
                }
                let text = String(decoding: mutated, as: UTF8.self)
                guard let common = commonForm(text) else { continue }
                accepted += 1
                #expect((try? generally(text).get()) == common, "\(text)")
            }
        }
        #expect(accepted > 100)
    }
}
