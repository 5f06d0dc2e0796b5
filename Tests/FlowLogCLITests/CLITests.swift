import FlowDomain
import FlowLogBasics
import FlowLogHistory
import FlowLogLMDB
import FlowLogTesting
import Foundation
import Testing

@Suite("flowlog as a process")
struct CLITests {
    @Test func theBinaryWasBuilt() {
        #expect(FileManager.default.isExecutableFile(atPath: FlowLogProcess.executable.path), "build it with `swift build` first")
    }

    @Test func theDemoPlaysASessionIntoTheDefaultLogAndANewStreamEachRun() throws {
        let folder = TemporaryDirectory()
        let first = try FlowLogProcess.run(["demo"], in: folder.path)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("stream demo-1"))
        #expect(first.stdout.contains("rejected, nothing appended: cartNotOpen"))
        #expect(first.stdout.contains("order-1: 47.02 for 5 items"))
        #expect(first.stderr.isEmpty)
        let second = try FlowLogProcess.run(["demo"], in: folder.path)
        #expect(second.status == 0)
        #expect(second.stdout.contains("stream demo-2"))
        let log = try LMDBEventLog(path: folder.child("flowlog.lmdb"), access: .readOnly)
        #expect(try log.streams().map(\.stream) == ["demo-1", "demo-2"])
        #expect(try log.lastPosition() == 34)
        let state = try log.state(ofStream: "demo-2").state
        #expect(state.orders.orders == [Order(orderId: "order-1", total: 4702, itemCount: 5)])
    }

    @Test func theDemoScriptFixtureIsTheScriptTheDemoPlays() throws {
        let printed = try FlowLogProcess.run(["demo", "--print-script"])
        let fixture = try String(contentsOf: FlowLogProcess.fixtures.appendingPathComponent("demo.ndjson"), encoding: .utf8)
        #expect(printed.stdout == fixture)
    }

    @Test(arguments: ["cart-rules", "onboarding", "envelope"])
    func sendAnswersAndFinalStatesMatchTheFixtures(name: String) throws {
        let folder = TemporaryDirectory()
        let directory = FlowLogProcess.fixtures.appendingPathComponent("commands")
        let commands = directory.appendingPathComponent("\(name).ndjson").path
        let result = try FlowLogProcess.run(["send", commands, "--db", folder.child("log")])
        let expectedAnswers = try String(contentsOf: directory.appendingPathComponent("\(name).answers.ndjson"), encoding: .utf8)
        #expect(result.stdout == expectedAnswers)
        #expect(result.status == 1, "each fixture holds rejected lines")
        let expectedStates = try String(contentsOf: directory.appendingPathComponent("\(name).states.ndjson"), encoding: .utf8)
        for expected in expectedStates.split(separator: "\n") {
            let stream = try JSONParser.parse(String(expected))["stream"]
            guard case .string(let streamId)? = stream else {
                Issue.record("fixture without stream")
                continue
            }
            let state = try FlowLogProcess.run(["state", "--stream", streamId, "--format", "json", "--db", folder.child("log")])
            if expected.contains(#""version":0,"#) {
                // Every command of the stream was rejected: the log holds no such stream.
                #expect(state.status == 66, "stream \(streamId): \(state.stderr)")
                #expect(state.stdout.isEmpty)
            } else {
                // Compared on what the build that wrote the fixture knew: members added since count as their defaults.
                let recorded = try JSONParser.parse(String(expected))
                #expect(
                    StateDiff.matching(try JSONParser.parse(state.stdout), olderShape: recorded) == recorded, "stream \(streamId): \(state.stdout)")
            }
        }
    }

    @Test func sendReadsStandardInputAndExitsZeroWhenAllIsAccepted() throws {
        let folder = TemporaryDirectory()
        let input = #"{"type":"app.launched","hasOnboarded":true,"stream":"s"}"# + "\n" + #"{"type":"home.selectTab","tab":1,"stream":"s"}"# + "\n"
        let result = try FlowLogProcess.run(["send", "--db", folder.child("log")], stdin: input)
        #expect(result.status == 0)
        #expect(
            result.stdoutLines == [
                #"{"ok":true,"stream":"s","positions":[1],"version":1}"#, #"{"ok":true,"stream":"s","positions":[2],"version":2}"#,
            ])
        #expect(result.stderr.isEmpty)
    }

    @Test func aTypedCommandPrintsItsEventsAndARejectionExitsOneWithASentence() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        let added = try FlowLogProcess.run(
            ["cart", "add", "--product", "p1", "--name", "Mug", "--price", "12.50", "--quantity", "2", "--stream", "s1"] + db)
        #expect(added.status == 0)
        #expect(added.stdout.contains(#"cart.productAdded {"productId":"p1","name":"Mug","unitPrice":1250,"quantity":2,"currency":"USD"}"#))
        let mismatch = try FlowLogProcess.run(["cart", "add", "--product", "p1", "--price", "12", "--stream", "s1", "--format", "json"] + db)
        #expect(mismatch.status == 1)
        #expect(mismatch.stdout.hasPrefix(#"{"ok":false,"stream":"s1","error":{"code":"priceMismatch""#))
        #expect(mismatch.stderr.contains("(priceMismatch)"))
        #expect(mismatch.stderr.contains("same unit price"))
        let state = try FlowLogProcess.run(["state", "--stream", "s1", "--format", "json"] + db)
        #expect(state.stdout.contains(#""quantity":2,"#))
    }

    @Test func everyTypedSubcommandReachesItsCommand() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log"), "--stream", "t", "--format", "json"]
        let steps: [[String]] = [
            ["system", "app-launched"], ["welcome", "log-in"], ["login", "cancel"], ["welcome", "sign-up"],
            ["onboarding", "next"], ["onboarding", "back"], ["onboarding", "next"], ["onboarding", "finish"],
            ["home", "select-tab", "--tab", "1"], ["home", "present-modal"], ["modal", "dismiss"],
            ["cart", "add", "--product", "p1", "--price", "3.5", "--quantity", "4"],
            ["cart", "apply-discount", "--discount", "D1", "--percent", "10", "--product", "p1"],
            ["cart", "apply-discount", "--discount", "C1", "--percent", "50"],
            ["cart", "remove-discount", "--discount", "C1"], ["cart", "remove", "--product", "p1", "--quantity", "1"],
            ["cart", "checkout"], ["system", "payment-failed", "--reason", "declined"], ["cart", "checkout"],
            ["system", "payment-succeeded", "--order", "o-1"], ["system", "app-launched", "--has-onboarded"],
            ["welcome", "sign-up"],
        ]
        for (index, step) in steps.enumerated() {
            let result = try FlowLogProcess.run(step + db)
            if index == steps.count - 1 {
                #expect(result.status == 1, "welcome.signUp on home is an invalid transition")
                #expect(result.stdout.contains("invalidTransition"))
            } else {
                #expect(result.status == 0, "\(step): \(result.stderr)")
                #expect(result.stdout.contains(#""version":\#(index + 1)"#), "\(step)")
            }
        }
        let state = try FlowLogProcess.run(["state", "--db", folder.child("log"), "--stream", "t", "--format", "json"])
        #expect(state.stdout.contains(#""orders":[{"orderId":"o-1","total":945,"itemCount":3,"currency":"USD"}]"#))
        #expect(state.stdout.contains(#""onboarding":{"launched":true,"stack":["home"],"modal":null,"hasOnboarded":true,"tab":0}"#))
    }

    @Test func usageErrorsExit64() throws {
        let folder = TemporaryDirectory()
        for arguments in [
            ["cart", "add", "--product", "p1", "--price", "12.505"], ["cart", "add", "--price", "1"], ["nonsense"],
            ["home", "select-tab", "--tab", "x"], ["state", "--format", "yaml"],
        ] {
            let result = try FlowLogProcess.run(arguments + ["--db", folder.child("log")])
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(!result.stderr.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.child("log")), "a usage error creates nothing")
    }

    @Test func readingALogThatIsNotThereCreatesNothing() throws {
        let folder = TemporaryDirectory()
        for arguments in [["state"], ["log"]] {
            let result = try FlowLogProcess.run(arguments + ["--db", folder.child("nothing")])
            #expect(result.status == 66)
            #expect(result.stderr.contains("There is no FlowLog log at"))
        }
        let missingParent = try FlowLogProcess.run(["cart", "checkout", "--db", folder.child("a/b/log")])
        #expect(missingParent.status == 73)
        #expect(missingParent.stderr.contains("does not exist"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func theLogPathComesFromDbOrTheEnvironment() throws {
        let folder = TemporaryDirectory()
        let viaEnvironment = try FlowLogProcess.run(
            ["system", "app-launched"], environment: ["FLOWLOG_DB": folder.child("env.lmdb")], in: folder.path)
        #expect(viaEnvironment.status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.child("env.lmdb/data.mdb")))
        let beforeSubcommand = try FlowLogProcess.run(["--db", folder.child("env.lmdb"), "state", "--format", "json"])
        #expect(beforeSubcommand.stdout.contains(#""launched":true"#), "\(beforeSubcommand.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.child("flowlog.lmdb")))
    }

    @Test func stateAtAPositionShowsThePast() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        _ = try FlowLogProcess.run(["demo", "--stream", "d"] + db)
        let atNine = try FlowLogProcess.run(["state", "--stream", "d", "--at", "9", "--format", "json"] + db)
        #expect(atNine.stdout.contains(#""version":9,"#))
        #expect(atNine.stdout.contains(#""discount":{"discountId":"MUG10","percent":10}"#))
        let tooFar = try FlowLogProcess.run(["state", "--stream", "d", "--at", "999"] + db)
        #expect(tooFar.status == 64)
        #expect(tooFar.stderr.contains("positions 1 through 17"))
    }

    @Test func theLogListsEventsAsATableOrJSON() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        _ = try FlowLogProcess.run(["demo", "--stream", "d"] + db)
        let table = try FlowLogProcess.run(["log", "--from", "12", "--limit", "2"] + db)
        #expect(table.stdoutLines.count == 3)
        #expect(table.stdoutLines[1].contains("cart.checkoutStarted"))
        let json = try FlowLogProcess.run(["log", "--stream", "d", "--format", "json", "--limit", "1"] + db)
        let event = try JSONParser.parse(json.stdoutLines[0])
        #expect(event["type"] == .string("app.launched"))
        #expect(event["causationId"] == .string("demo-01"))
        #expect(event["correlationId"] == .string("demo-session"))
        guard case .string(let id)? = event["eventId"], case .string(let time)? = event["timestamp"] else {
            Issue.record("envelope")
            return
        }
        #expect(EventID(id) != nil)
        #expect(Timestamp(rfc3339: time) != nil)
    }
}
