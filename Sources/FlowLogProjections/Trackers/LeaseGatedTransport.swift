import FlowLogBasics
public import Foundation

/// A tracker's transport that sends only while its runner still holds the tracker's lease, asked
/// before every request: a runner paused past its lease's expiry (`projections run --lease-timeout`)
/// and resumed sends nothing more, even in the middle of a batch; the delivery ends with the lease
/// lost (`FlowLogError.busy`), which the runner turns into exit 75.
public final class LeaseGatedTransport: HTTPTransport {
    private let inner: any HTTPTransport
    private let projector: String
    private let holds: (String) -> Bool

    public init(_ inner: any HTTPTransport, projector: String, holds: @escaping (String) -> Bool) {
        (self.inner, self.projector, self.holds) = (inner, projector, holds)
    }

    public func post(_ url: URL, headers: [(String, String)], body: [UInt8], timeout: Double) throws -> HTTPReply {
        guard holds(projector) else { throw FlowLogError.busy(ProjectorBusy(projector: projector, pid: nil, lost: true)) }
        return try inner.post(url, headers: headers, body: body, timeout: timeout)
    }
}
