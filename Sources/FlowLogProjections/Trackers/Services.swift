public import FlowLogBasics

/// Who sends the calls: every Segment message carries it as `context.library`, as every Segment
/// library does, so a warehouse can tell FlowLog's calls from the app's own.
public struct LibraryInfo: Equatable, Sendable {
    public let name: String
    public let version: String

    public init(name: String = "flowlog", version: String) { (self.name, self.version) = (name, version) }
}

/// Segment's HTTP Tracking API: each event's calls (`SegmentMapping`) as batch messages with a
/// `messageId` derived from the event id (stable across retries, rebuilds and crashes, so Segment
/// deduplicates what at-least-once delivery sends twice), the event's own `timestamp`, the stream as
/// `anonymousId`, and `context.library`. `sentAt` goes on each request, when it is sent.
public struct SegmentService: AnalyticsService {
    public let name = "segment"
    public let settings: AnalyticsSettings
    public let library: LibraryInfo
    public let limits: RequestLimits

    /// `batchSize`: messages per request at most (Segment takes up to 2,500; its libraries send 100).
    public init(settings: AnalyticsSettings = AnalyticsSettings(), library: LibraryInfo, batchSize: Int = 100) {
        self.settings = settings
        self.library = library
        // 32 KB a message and 500 KB a request, as Segment's own libraries read them (KB = 1,024
        // bytes; the batch kept under 500,000 bytes to leave room for the envelope).
        self.limits = RequestLimits(messageBytes: 32 * 1024, requestBytes: 500_000, count: min(max(1, batchSize), 2_500), oneClientPerRequest: false)
    }

    public func messages(for tracked: TrackedEvent) -> [TrackerMessage] {
        let record = tracked.record
        return SegmentMapping.calls(for: tracked, settings: settings).enumerated().map { index, call in
            let id = TrackerMessage.id(record.eventId, index)
            var json = JSONWriter()
            json.beginObject()
            json.key("type")
            json.string(call.type.rawValue)
            json.key(dynamic: call.type == .track ? "event" : "name")
            json.string(call.name)
            json.key("anonymousId")
            json.string(record.stream)
            json.key("messageId")
            json.string(id)
            json.key("timestamp")
            json.timestamp(record.timestamp)
            json.key("context")
            json.beginObject()
            json.key("library")
            json.beginObject()
            json.key("name")
            json.string(library.name)
            json.key("version")
            json.string(library.version)
            json.endObject()
            json.endObject()
            json.key("properties")
            AnalyticsProperty.write(call.properties, into: &json)
            json.endObject()
            return TrackerMessage(
                position: record.position, id: id, client: record.stream, timestampMicros: record.timestamp.microseconds, bytes: json.bytes)
        }
    }

    /// `{"batch":[…],"sentAt":"…"}`.
    public func body(of messages: ArraySlice<TrackerMessage>, sentAt: Timestamp) -> [UInt8] {
        var body = Array(#"{"batch":["#.utf8)
        for (index, message) in messages.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += message.bytes
        }
        var json = JSONWriter()
        json.beginObject()
        json.key("sentAt")
        json.timestamp(sentAt)
        json.endObject()
        body += Array("],".utf8) + json.bytes.dropFirst()
        return body
    }

    public func fileLine(for message: TrackerMessage) -> [UInt8] { message.bytes }
}

/// GA4's Measurement Protocol: each event's GA4 events (`GA4Mapping`, names and values within GA4's
/// limits), sent as `{client_id, timestamp_micros, events:[{name, params, timestamp_micros}]}`,
/// one stream (client) per request, at most 25 events and 130 KB. GA4 cannot deduplicate (only
/// `purchase` by its `transaction_id`), so its checkpoint advances after every acknowledged request.
public struct GA4Service: AnalyticsService {
    public let name = "ga4"
    public let settings: AnalyticsSettings
    public let limits = RequestLimits(messageBytes: 130_000 - 200, requestBytes: 130_000, count: 25, oneClientPerRequest: true)

    public init(settings: AnalyticsSettings = AnalyticsSettings()) {
        self.settings = settings
    }

    public func messages(for tracked: TrackedEvent) -> [TrackerMessage] {
        let record = tracked.record
        return GA4Mapping.events(for: tracked, settings: settings).enumerated().map { index, event in
            var json = JSONWriter()
            json.beginObject()
            json.key("name")
            json.string(GA4Names.eventName(event.name))
            json.key("params")
            AnalyticsProperty.write(GA4Names.limited(event.params), into: &json)
            json.key("timestamp_micros")
            json.int(Int(record.timestamp.microseconds))
            json.endObject()
            return TrackerMessage(
                position: record.position, id: TrackerMessage.id(record.eventId, index), client: record.stream,
                timestampMicros: record.timestamp.microseconds, bytes: json.bytes)
        }
    }

    /// One client's events; the request's `timestamp_micros` is its first event's (each event has its own too).
    public func body(of messages: ArraySlice<TrackerMessage>, sentAt: Timestamp) -> [UInt8] {
        guard let first = messages.first else { return Array("{}".utf8) }
        var json = JSONWriter()
        json.beginObject()
        json.key("client_id")
        json.string(first.client)
        json.key("timestamp_micros")
        json.int(Int(first.timestampMicros))
        json.key("events")
        json.beginArray()
        json.endArray()
        json.endObject()
        var body = Array(json.bytes.dropLast(3))  // `]}` and the `[`: the events go in between
        body.append(UInt8(ascii: "["))
        for (index, message) in messages.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body += message.bytes
        }
        return body + Array("]}".utf8)
    }

    /// A file line is a whole request of one event, so each line can be posted as it is.
    public func fileLine(for message: TrackerMessage) -> [UInt8] { body(of: [message][...], sentAt: Timestamp(microseconds: 0)) }
}
