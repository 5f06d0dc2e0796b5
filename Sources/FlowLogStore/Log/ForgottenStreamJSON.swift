public import FlowLogBasics

extension FlowJSON {
    /// What one forget erased, as `flowlog forget --format json` prints it and
    /// `DELETE /streams/{stream}` answers it: one writer, so the two faces cannot drift apart.
    /// `segment.anonymousId` and `ga4.client_id` are the stream id again, under the names the
    /// vendors' deletion tools ask for, so that whoever handles the request can paste them.
    public static func writeForgotten(_ forgotten: ForgottenStream, into json: inout JSONWriter) {
        json.beginObject()
        json.key("stream")
        json.string(forgotten.stream)
        json.key("events")
        json.int(forgotten.events)
        json.key("firstPosition")
        json.int(forgotten.firstPosition)
        json.key("lastPosition")
        json.int(forgotten.lastPosition)
        json.key("correlationIds")
        json.beginArray()
        for id in forgotten.correlationIds { json.string(id) }
        json.endArray()
        json.key("segment")
        json.beginObject()
        json.key("anonymousId")
        json.string(forgotten.stream)
        json.endObject()
        json.key("ga4")
        json.beginObject()
        json.key("client_id")
        json.string(forgotten.stream)
        json.endObject()
        json.endObject()
    }
}
