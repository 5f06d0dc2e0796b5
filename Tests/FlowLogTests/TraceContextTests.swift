import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Testing

/// W3C trace contexts: the `traceparent` reader, and a record of layout 4 keeping one through the
/// codec, the export line and its forgotten form.
@Suite("Trace contexts")
struct TraceContextTests {
    private static let header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test func aTraceparentReadsIntoItsFieldsAndBack() throws {
        let context = try #require(TraceContext(traceparent: Self.header, tracestate: "congo=t61rcWkgMzE"))
        #expect(context.traceHigh == 0x4bf9_2f35_77b3_4da6 && context.traceLow == 0xa3ce_929d_0e0e_4736)
        #expect(context.spanID == 0x00f0_67aa_0ba9_02b7 && context.flags == 1)
        #expect(context.traceparent == Self.header && context.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(context.state == "congo=t61rcWkgMzE")
        // A later version's first four fields, as W3C asks of a reader; written back as version 00.
        #expect(TraceContext(traceparent: "cc" + Self.header.dropFirst(2) + "-what-comes-later")?.traceparent == Self.header)
    }

    @Test(arguments: [
        "", "garbage", String(Self.header.dropLast()), Self.header + "-", Self.header.uppercased(),
        "ff" + Self.header.dropFirst(2), "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "0x-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    ])
    func whatW3CRefusesIsNotAContext(header: String) {
        #expect(TraceContext(traceparent: header) == nil)
    }

    @Test func aTracestateOutsidePrintableASCIIOrTooLongIsDropped() throws {
        #expect(TraceContext(traceparent: Self.header, tracestate: "café")?.state == nil)
        #expect(TraceContext(traceparent: Self.header, tracestate: "a\u{7}b")?.state == nil)
        #expect(TraceContext(traceparent: Self.header, tracestate: String(repeating: "s", count: 513))?.state == nil)
        #expect(TraceContext(traceparent: Self.header, tracestate: String(repeating: "s", count: 512))?.state?.count == 512)
    }

    private func traced(_ position: Int) -> RecordedEvent {
        var record = sampleRecord(.navigation(.modalPresented), position: position)
        record.traceContext = TraceContext(traceparent: Self.header, tracestate: #"k=v,q="\"#)
        return record
    }

    @Test func layout4KeepsTheContextInsideTheChainAndLayout2DropsIt() throws {
        var writer = BinaryWriter()
        var salts = RecordSalts()
        let record = traced(1)
        let hash = RecordCodec.encode(record, previousHash: 7, layout: .traced, salts: &salts, into: &writer)
        var bytes = writer.bytes
        #expect(bytes[0] == 4)
        let read = try bytes.withUnsafeBytes { try RecordCodec.decode($0, expectedPosition: 1, previousHash: 7) }
        #expect(read.0 == record && read.hash == hash)
        // A flipped bit of the trace id breaks the chain.
        bytes[RecordCodec.saltOffset + RecordCodec.saltSize + 4 + 2 + 2] ^= 1
        #expect(throws: RecordDamage.self) { try bytes.withUnsafeBytes { try RecordCodec.decode($0, expectedPosition: 1, previousHash: 7) } }
        // A log below schema 5 writes layout 2, without the context, for the builds that read it.
        _ = RecordCodec.encode(record, previousHash: 7, layout: .salted, salts: &salts, into: &writer)
        #expect(writer.bytes[0] == 2)
        let plain = try writer.withUnsafeBytes { try RecordCodec.decode($0, expectedPosition: 1, previousHash: 7).0 }
        #expect(plain.traceContext == nil && plain.eventId == record.eventId)
    }

    @Test func theForgottenFormOfATracedRecordKeepsNoContext() throws {
        var writer = BinaryWriter()
        var salts = RecordSalts()
        let record = traced(3)
        _ = RecordCodec.encode(record, previousHash: 9, layout: .traced, salts: &salts, into: &writer)
        let forgotten = try #require(writer.withUnsafeBytes { RecordCodec.forgottenForm(of: $0, previousHash: 9, position: 3) })
        #expect(forgotten.count == RecordCodec.forgottenSize)
        let read = try forgotten.withUnsafeBytes { try RecordCodec.decode($0, expectedPosition: 3, previousHash: 9).0 }
        #expect(read.isForgotten && read.traceContext == nil && read.eventId == record.eventId)
    }

    @Test func anExportLineCarriesTheContextAndReadsBack() throws {
        let record = traced(2)
        let line = FlowJSON.event(record)
        #expect(line.contains(#""traceparent":"\#(Self.header)","tracestate":"k=v,q=\"\\""#), "\(line)")
        var bytes = Array(line.utf8)
        let read = try bytes.withUnsafeMutableBytes { try RecordedEventJSON.decode(UnsafeRawBufferPointer($0)) }
        #expect(read == record)
        let refused = Array(line.replacingOccurrences(of: "00f067aa0ba902b7", with: "00F067AA0BA902B7").utf8)
        #expect(throws: RecordedEventJSON.Problem.self) { try refused.withUnsafeBytes { try RecordedEventJSON.decode($0) } }
        let badState = Array(line.replacingOccurrences(of: #""tracestate":"k=v,q=\"\\""#, with: #""tracestate":"caf\u00e9""#).utf8)
        #expect(badState != Array(line.utf8))
        #expect(throws: RecordedEventJSON.Problem.self) { try badState.withUnsafeBytes { try RecordedEventJSON.decode($0) } }
    }
}
