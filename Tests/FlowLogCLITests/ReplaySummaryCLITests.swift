import FlowLogTesting
import Foundation
import Testing

/// `replay --summary` as text counts a session's orders without holding them
/// (`StreamSummaries.KeptRowsShown.count`): the count it prints is every order, and the JSON face
/// still lists them all.
@Suite("replay --summary of long sessions")
struct ReplaySummaryCLITests {
    @Test func theTextSummaryCountsEveryOrderOfALongSession() throws {
        // Given a session that placed 20 orders and one that placed one
        let folder = TemporaryDirectory()
        let db = folder.child("log")
        func orders(_ count: Int, _ stream: String) -> [String] {
            (1...count).flatMap { number in
                [
                    #"{"type":"cart.addProduct","stream":"\#(stream)","productId":"p\#(number)","unitPrice":250,"quantity":1}"#,
                    #"{"type":"cart.checkout","stream":"\#(stream)"}"#,
                    #"{"type":"payment.succeeded","stream":"\#(stream)","orderId":"o-\#(stream)-\#(number)"}"#,
                ]
            }
        }
        let sent = try FlowLogProcess.run(["send", "--db", db], stdin: (orders(20, "long") + orders(1, "short")).joined(separator: "\n") + "\n")
        #expect(sent.status == 0, "\(sent.stderr)")
        // When it is summarized as text and as JSON
        let text = try FlowLogProcess.run(["replay", "--summary", "--db", db])
        let json = try FlowLogProcess.run(["replay", "--summary", "--format", "json", "--db", db])
        // Then the text counts every order of each
        #expect(text.status == 0 && json.status == 0, "\(text.stderr)\(json.stderr)")
        #expect(text.stdoutLines.first?.hasPrefix("long v60: cart open with 0 lines, total 0.00; 20 orders;") == true, "\(text.stdout)")
        #expect(text.stdoutLines.dropFirst().first?.hasPrefix("short v3: cart open with 0 lines, total 0.00; 1 order;") == true, "\(text.stdout)")
        // And the JSON lists them all
        let orderIds = json.stdoutLines.first.map { $0.components(separatedBy: #""orderId":"#).count - 1 }
        #expect(orderIds == 20, "\(json.stdout)")
    }
}
