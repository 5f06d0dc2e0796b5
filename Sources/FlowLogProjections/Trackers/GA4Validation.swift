import FlowLogBasics
public import Foundation

/// One finding of GA4's validation server, with the request it was about.
public struct GA4ValidationMessage: Equatable, Sendable {
    /// The positions of the events in the request the finding is about.
    public let positions: ClosedRange<Int>
    public let fieldPath: String
    public let description: String
    public let validationCode: String
}

/// `--validate`: sends what the GA4 tracker would send to `/debug/mp/collect` instead, and gathers
/// the validation messages. The validation server collects nothing, so no checkpoint moves.
public enum GA4Validation {
    /// The validation server's URL for a collect URL: `/mp/collect` → `/debug/mp/collect`.
    public static func debugURL(for url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.path.hasSuffix("/mp/collect"),
            !components.path.hasSuffix("/debug/mp/collect")
        else { return nil }
        components.path = String(components.path.dropLast("/mp/collect".count)) + "/debug/mp/collect"
        return components.url
    }

    public static func validate(
        _ messages: [TrackerMessage], service: GA4Service, endpoint: VendorEndpoint,
        transport: any HTTPTransport, timeout: Double = 30
    ) throws -> [GA4ValidationMessage] {
        var findings: [GA4ValidationMessage] = []
        for step in RequestPlanner.plan(messages, limits: service.limits) {
            switch step {
            case .deadLetter(let message, let reason):
                findings.append(
                    GA4ValidationMessage(
                        positions: message.position...message.position, fieldPath: "events", description: reason,
                        validationCode: "VALUE_OUT_OF_BOUNDS"))
            case .request(let slice):
                let reply: HTTPReply
                do {
                    reply = try transport.post(
                        endpoint.url, headers: [("Content-Type", "application/json")] + endpoint.headers,
                        body: service.body(of: slice, sentAt: SystemClock().now()), timeout: timeout)
                } catch let failure as TransportFailure {
                    throw FlowLogError.input("GA4's validation server at \(endpoint) did not answer: \(failure). Check the URL, then run again.")
                }
                let positions = slice.first!.position...slice.last!.position
                guard (200..<300).contains(reply.status), let answer = try? JSONParser.parse(String(decoding: reply.body, as: UTF8.self)),
                    case .array(let list)? = answer["validationMessages"]
                else {
                    throw FlowLogError.input(
                        "GA4's validation server at \(endpoint) answered HTTP \(reply.status)\(VendorSink.excerpt(reply.body)), not validation messages. Give the collect URL (…/mp/collect); --validate sends to …/debug/mp/collect."
                    )
                }
                for item in list {
                    func text(_ key: String) -> String { if case .string(let value)? = item[key] { value } else { "" } }
                    findings.append(
                        GA4ValidationMessage(
                            positions: positions, fieldPath: text("fieldPath"), description: text("description"),
                            validationCode: text("validationCode")))
                }
            }
        }
        return findings
    }
}
