/// What delivering a list of messages takes, in order: requests within the vendor's limits, and
/// dead letters for the messages no request may carry. Pure, so the limits are tested without a network.
public enum DeliveryStep: Equatable, Sendable {
    case request(ArraySlice<TrackerMessage>)
    case deadLetter(TrackerMessage, reason: String)
}

public enum RequestPlanner {
    /// Room kept in each request for the envelope around the messages (`{"batch":[…],"sentAt":…}`,
    /// GA4's `client_id` and `timestamp_micros`).
    static let envelopeBytes = 512

    /// Splits `messages` into requests of at most `limits.count` messages and `limits.requestBytes`
    /// bytes (of one client where the vendor wants that). An event's messages stay in one request
    /// where they fit, so a checkpoint taken between requests never splits an event. A message over
    /// `limits.messageBytes` becomes a dead letter with the reason.
    public static func plan(_ messages: [TrackerMessage], limits: RequestLimits) -> [DeliveryStep] {
        var steps: [DeliveryStep] = []
        var start = messages.startIndex
        var bytes = envelopeBytes
        func flush(upTo end: Int) {
            if end > start { steps.append(.request(messages[start..<end])) }
            start = end
            bytes = envelopeBytes
        }
        var index = messages.startIndex
        while index < messages.endIndex {
            let message = messages[index]
            if message.bytes.count > limits.messageBytes {
                flush(upTo: index)
                steps.append(
                    .deadLetter(
                        message,
                        reason:
                            "the message is \(message.bytes.count) bytes; \(limitName(limits)) takes at most \(limits.messageBytes) bytes a message"))
                index += 1
                start = index
                continue
            }
            // The event's messages from here: they go together.
            var end = index + 1
            while end < messages.endIndex, messages[end].position == message.position, messages[end].bytes.count <= limits.messageBytes { end += 1 }
            let unit = messages[index..<end]
            let unitBytes = unit.reduce(0) { $0 + $1.bytes.count + 1 }
            let otherClient = limits.oneClientPerRequest && start < index && messages[start].client != message.client
            if start < index, otherClient || index - start + unit.count > limits.count || bytes + unitBytes > limits.requestBytes {
                flush(upTo: index)
            }
            if unit.count > limits.count || envelopeBytes + unitBytes > limits.requestBytes {
                // One event alone over a request's limits (never with today's kinds): one message a request.
                flush(upTo: index)
                for single in index..<end { steps.append(.request(messages[single..<single + 1])) }
                start = end
            } else {
                bytes += unitBytes
            }
            index = end
        }
        flush(upTo: messages.endIndex)
        return steps
    }

    private static func limitName(_ limits: RequestLimits) -> String { limits.oneClientPerRequest ? "GA4" : "Segment" }
}
