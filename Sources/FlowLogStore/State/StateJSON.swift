public import FlowLogBasics

/// The JSON face of a stream's state (SPEC §5): its stream and version, then the domain's members
/// (`LogDomain.writeStateMembers`).
extension FlowJSON {
    /// A stream's projected state, every key always present (SPEC §5).
    public static func writeState(_ state: LogDecider.State, stream: String, version: Int, into json: inout JSONWriter) {
        writeState(state, stream: stream, version: version, into: &json, drain: nil)
    }

    /// A stream's state and a newline, written to `output` in pieces of about 64 KB: the state of a
    /// stream with tens of thousands of orders is megabytes, and one buffer for all of it cost more
    /// in fresh pages than writing it did.
    public static func writeState(_ state: LogDecider.State, stream: String, version: Int, to output: any OutputSink) throws {
        var json = JSONWriter(capacity: drainBytes + 4096)
        var failure: (any Error)?
        writeState(state, stream: stream, version: version, into: &json) { json in
            guard json.bytes.count >= drainBytes else { return }
            if failure == nil {
                do { try output.write(json.bytes) } catch { failure = error }
            }
            json.bytes.removeAll(keepingCapacity: true)
        }
        if let failure { throw failure }
        json.newline()
        try output.write(json.bytes)
    }

    /// How many bytes the writer gathers before they are written out.
    private static let drainBytes = 1 << 16

    private static func writeState(
        _ state: LogDecider.State, stream: String, version: Int, into json: inout JSONWriter,
        drain: ((inout JSONWriter) -> Void)?
    ) {
        json.beginObject()
        json.key("stream")
        json.string(stream)
        json.key("version")
        json.int(version)
        LogDecider.writeStateMembers(state, into: &json, drain: drain)
        json.endObject()
    }

    public static func state(_ state: LogDecider.State, stream: String, version: Int) -> String {
        var json = JSONWriter(capacity: 512)
        writeState(state, stream: stream, version: version, into: &json)
        return json.text
    }
}
