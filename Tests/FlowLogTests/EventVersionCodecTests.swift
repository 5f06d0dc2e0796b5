import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Testing

/// Records and exported lines keep the version of their kind they were written in; readers upcast
/// older ones and refuse newer ones as newer, never as damage.
@Suite("Event kind versions in records and exports")
struct EventVersionCodecTests {
    private func record(_ event: AppEvent, position: Int = 1) -> RecordedEvent {
        RecordedEvent(
            position: position, stream: "s", version: position, eventId: EventID(high: 1, low: UInt64(position)),
            timestamp: Timestamp(microseconds: 1_700_000_000_000_000), actor: .user, event: event)
    }

    private func encoded(_ record: RecordedEvent) -> [UInt8] {
        var writer = BinaryWriter()
        _ = RecordCodec.encode(record, previousHash: RecordCodec.genesisHash, into: &writer)
        return writer.bytes
    }

    private let percent = AppEvent.cart(.discountApplied(.init(discountId: "D1", percent: 10, productId: "p1")))
    private let amount = AppEvent.cart(.discountApplied(.init(discountId: "D2", percent: 0, amountOff: 250, productId: nil)))

    @Test func anEventAnEarlierVersionHoldsIsStoredInItByteForByte() throws {
        let bytes = encoded(record(percent))
        #expect(bytes[2] == 3 && bytes[3] == 0, "tag 3, version 1: the bytes a build before versions wrote")
        let v2 = encoded(record(amount))
        #expect(UInt16(v2[2]) | UInt16(v2[3]) << 8 == 3 | 1 << 12, "tag 3, version 2")
        for bytes in [bytes, v2] {
            let decoded = try bytes.withUnsafeBytes { try RecordCodec.decode($0, expectedPosition: 1, previousHash: RecordCodec.genesisHash).0 }
            #expect([percent, amount].contains(decoded.event))
        }
    }

    @Test func aRecordOfANewerVersionIsNewerNotDamaged() throws {
        var bytes = encoded(record(percent))
        bytes[3] = UInt8(2 << 4)  // version 3 of cart.discountApplied, which no build knows yet
        let body = bytes.count - RecordCodec.trailerSize
        let hash = XXHash64.hash(Array(bytes[0..<body]), seed: RecordCodec.genesisHash)
        withUnsafeBytes(of: hash.littleEndian) { bytes.replaceSubrange(body..., with: $0) }
        do {
            _ = try bytes.withUnsafeBytes { try RecordCodec.decode($0, expectedPosition: 1, previousHash: RecordCodec.genesisHash) }
            Issue.record("a version 3 record was read")
        } catch let error as RecordDamage {
            #expect(error.isNewerThanKnown)
            #expect(error.description.contains("cart.discountApplied version 3"))
            #expect(error.description.contains("version 2"))
            #expect(error.description.contains("upgrade FlowLog"))
            #expect(!error.description.contains("damaged"))
        }
    }

    @Test func exportedLinesCarryTheCurrentVersionAndOldLinesAreVersionOne() throws {
        let line = FlowJSON.event(record(percent))
        #expect(line.contains(#""eventVersion":2,"#))
        #expect(line.contains(#""data":{"discountId":"D1","percent":10,"amountOff":0,"productId":"p1"}"#))
        let read = try Array(line.utf8).withUnsafeBytes { try RecordedEventJSON.decode($0) }
        #expect(read.event == percent)
        // A line from before versions: no eventVersion, version 1's fields.
        let old = line.replacingOccurrences(of: #""eventVersion":2,"#, with: "").replacingOccurrences(of: #""amountOff":0,"#, with: "")
        let upcast = try Array(old.utf8).withUnsafeBytes { try RecordedEventJSON.decode($0) }
        #expect(upcast.event == percent)
        #expect(Array(old.utf8).withUnsafeBytes { RecordedEventJSON.canonical($0) } == upcast, "the fast path reads old lines too")
        // A line of a version this build does not know.
        let newer = line.replacingOccurrences(of: #""eventVersion":2,"#, with: #""eventVersion":3,"#)
        #expect(throws: RecordedEventJSON.Problem.self) { try Array(newer.utf8).withUnsafeBytes { try RecordedEventJSON.decode($0) } }
        do {
            _ = try Array(newer.utf8).withUnsafeBytes { try RecordedEventJSON.decode($0) }
        } catch let error as RecordedEventJSON.Problem {
            #expect(error.message.contains("newer than this FlowLog knows"), "\(error.message)")
        }
    }

    /// A kind version declared for a log schema this build does not write yet could never be stored.
    @Test func theNewestLogSchemaHoldsEveryDeclaredKindVersion() {
        #expect(LogSettings.newestLogSchema >= EventKinds.newestLogSchema)
        for info in EventKinds.all {
            #expect(info.newestVersion(inLogSchema: LogSettings.newestLogSchema) == info.version, "\(info.typeName)")
        }
    }
}
