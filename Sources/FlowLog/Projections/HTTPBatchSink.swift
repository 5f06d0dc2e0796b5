import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Posts a service's calls as one JSON body, `{"batch":[…]}` (the shape of Segment's batch API), and
/// retries with exponential backoff up to a bound. When the collector keeps failing it throws, so the
/// tracker stops with that status and its checkpoint stays put: it never skips an event.
public final class HTTPBatchSink: TrackerSink {
    public struct RetryPolicy: Sendable {
        public var attempts: Int
        public var firstDelay: Double
        public var maximumDelay: Double
        /// Calls per request; a larger delivery is split into several requests, sent in order.
        public var batchSize: Int

        public init(attempts: Int = 5, firstDelay: Double = 0.05, maximumDelay: Double = 2, batchSize: Int = 500) {
            self.attempts = attempts
            self.firstDelay = firstDelay
            self.maximumDelay = maximumDelay
            self.batchSize = batchSize
        }

        /// The pause before attempt `attempt` (from 2): doubling from the first delay, capped.
        public func delay(beforeAttempt attempt: Int) -> Double {
            min(maximumDelay, firstDelay * Double(1 << min(attempt - 2, 30)))
        }
    }

    public struct DeliveryFailure: Error, CustomStringConvertible {
        public let url: URL
        public let attempts: Int
        public let lastProblem: String
        public var description: String {
            "the collector at \(url) refused \(attempts) attempts in a row (last: \(lastProblem)); the tracker stopped before these calls and will resume there"
        }
    }

    public let url: URL
    public let policy: RetryPolicy
    private let session: URLSession

    public init(url: URL, policy: RetryPolicy = RetryPolicy()) {
        self.url = url
        self.policy = policy
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        self.session = URLSession(configuration: configuration)
    }

    public func deliver(_ calls: [[UInt8]]) throws {
        for start in stride(from: 0, to: calls.count, by: policy.batchSize) {
            try post(Array(calls[start..<min(start + policy.batchSize, calls.count)]))
        }
    }

    private func post(_ calls: [[UInt8]]) throws {
        var body = Array("{\"batch\":[".utf8)
        for (index, call) in calls.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += call
        }
        body += Array("]}".utf8)
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body)
        var problem = ""
        for attempt in 1...max(1, policy.attempts) {
            if attempt > 1 { Thread.sleep(forTimeInterval: policy.delay(beforeAttempt: attempt)) }
            let (status, error) = send(request)
            if let status, (200..<300).contains(status) { return }
            problem = error ?? "HTTP status \(status ?? 0)"
        }
        throw DeliveryFailure(url: url, attempts: policy.attempts, lastProblem: problem)
    }

    /// One request, waited for: the status code, or what went wrong.
    private func send(_ request: URLRequest) -> (Int?, String?) {
        final class Outcome: @unchecked Sendable {
            var status: Int?
            var error: String?
        }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: request) { _, response, error in
            outcome.status = (response as? HTTPURLResponse)?.statusCode
            outcome.error = error.map { $0.localizedDescription }
            done.signal()
        }.resume()
        done.wait()
        return (outcome.status, outcome.error)
    }
}
