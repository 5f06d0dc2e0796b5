import FlowLogLMDB
import FlowLogTesting
import Foundation
import Testing

/// `demo` never adds to a stream that has events; `help` of a subcommand that does not exist is a
/// usage error; `orders`, a reading command, never writes (it used to catch the storage projector up).
@Suite("demo, help and orders")
struct ReadingCommandsWriteNothingCLITests {
    @Test func theDemoRefusesAStreamThatHasEvents() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        let first = try FlowLogProcess.run(["demo", "--stream", "demo-1"] + db)
        #expect(first.status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: folder.child("log/data.mdb")))
        for stream in ["demo-1", "bad stream"] {
            let again = try FlowLogProcess.run(["demo", "--stream", stream] + db)
            #expect(again.status == 64, "\(again.stderr)")
            #expect(again.stdout.isEmpty)
            #expect(again.stderr.contains(stream == "demo-1" ? "already has 17 events" : "not an identifier"), "\(again.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.child("log/data.mdb"))) == before, "nothing was appended")
        #expect(try LMDBEventLog(path: folder.child("log"), access: .readOnly).lastPosition() == 17)
        let next = try FlowLogProcess.run(["demo"] + db)
        #expect(next.stdout.contains("stream demo-2"))
    }

    @Test func helpForASubcommandThatDoesNotExistIsAUsageError() throws {
        for arguments in [["help", "nosuch"], ["help", "cart", "nosuch"], ["help", "projections", "nosuch"]] {
            let result = try FlowLogProcess.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(result.stderr.contains("nosuch"), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("flowlog help"), "\(arguments): \(result.stderr)")
        }
        for arguments in [["help"], ["help", "state"], ["help", "cart", "add"], ["help", "projections", "run"]] {
            let result = try FlowLogProcess.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout.contains("USAGE:"), "\(arguments)")
        }
    }

    @Test func ordersReadsWithoutWritingAndStillShowsEveryOrder() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        _ = try FlowLogProcess.run(["demo"] + db)
        let session = [
            #"{"type":"cart.addProduct","stream":"x","productId":"p","unitPrice":300,"quantity":2}"#,
            #"{"type":"cart.checkout","stream":"x"}"#, #"{"type":"payment.succeeded","stream":"x","orderId":"o-x"}"#,
        ]
        _ = try FlowLogProcess.run(["send"] + db, stdin: session.joined(separator: "\n") + "\n")
        let before = try Data(contentsOf: URL(fileURLWithPath: folder.child("log/data.mdb")))
        let orders = try FlowLogProcess.run(["orders"] + db)
        #expect(orders.status == 0, "\(orders.stderr)")
        #expect(orders.stdoutLines == ["#15 demo-1 order-1: 47.02 for 5 items", "#20 x o-x: 6.00 for 2 items"])
        let one = try FlowLogProcess.run(["orders", "--stream", "x", "--format", "json"] + db)
        #expect(one.stdoutLines == [#"{"position":20,"stream":"x","orderId":"o-x","total":600,"itemCount":2}"#])
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.child("log/data.mdb"))) == before, "orders wrote nothing")
        let status = try FlowLogProcess.run(["projections", "status"] + db)
        #expect(status.stdoutLines.first?.hasPrefix("storage          checkpoint 17, lag 3") == true, "\(status.stdout)")
    }
}
