import FlowLogBasics
import FlowLogProjections
import Foundation
import Testing

/// A tracker's requests stop the moment its runner's lease is lost, even inside a batch.
@Suite("Requests gated by the lease")
struct LeaseGatedTransportTests {
    private final class Counting: HTTPTransport {
        var posts = 0
        func post(_ url: URL, headers: [(String, String)], body: [UInt8], timeout: Double) throws -> HTTPReply {
            posts += 1
            return HTTPReply(status: 200, headers: [], body: [])
        }
    }

    @Test func aRequestIsSentOnlyWhileTheLeaseHolds() throws {
        let inner = Counting()
        var holding = true
        var asked: [String] = []
        let transport = LeaseGatedTransport(inner, projector: "tracker.segment") { projector in
            asked.append(projector)
            return holding
        }
        let url = URL(string: "http://127.0.0.1:9/v1/batch")!
        #expect(try transport.post(url, headers: [], body: [], timeout: 1).status == 200)
        holding = false
        #expect(throws: FlowLogError.busy(ProjectorBusy(projector: "tracker.segment", pid: nil, lost: true))) {
            try transport.post(url, headers: [], body: [], timeout: 1)
        }
        #expect(inner.posts == 1, "the request after the lease was lost never left")
        #expect(asked == ["tracker.segment", "tracker.segment"])
    }
}
