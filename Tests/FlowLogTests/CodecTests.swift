import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Testing

@Suite("xxHash64")
struct XXHash64Tests {
    // Reference values from the `xxhash` Python package (the C library's binding).
    @Test(arguments: [
        (Array("".utf8), UInt64(0), UInt64(0xef46_db37_51d8_e999)),
        (Array("a".utf8), 0, 0xd24e_c4f1_a98c_6e5b),
        (Array("abc".utf8), 0, 0x44bc_2cf5_ad77_0999),
        (Array("FlowLog event log".utf8), 0, 0x882f_d518_9be9_ce78),
        (Array(0..<100), 0, 0x6ac1_e580_3216_6597),
        (Array(0..<100), 12345, 0x028b_a1ae_2de4_de27),
    ])
    func matchesTheReferenceImplementation(bytes: [UInt8], seed: UInt64, expected: UInt64) {
        #expect(XXHash64.hash(bytes, seed: seed) == expected)
    }
}

/// One event of every type, with awkward strings, for codec and round-trip tests.
/// Two events of every declared kind, with values at the edges codecs must carry.
let everyEventType = RandomEvents.everyKind()

@Suite("Binary record codec")
struct RecordCodecTests {
    private func encode(_ records: [RecordedEvent], layout: RecordLayout = .salted) -> [[UInt8]] {
        var writer = BinaryWriter()
        var hash = RecordCodec.genesisHash
        return records.map { record in
            hash = RecordCodec.encode(record, previousHash: hash, layout: layout, into: &writer)
            return writer.bytes
        }
    }

    private func decode(_ encoded: [[UInt8]]) throws -> [RecordedEvent] {
        var hash = RecordCodec.genesisHash
        return try encoded.enumerated().map { index, bytes in
            try bytes.withUnsafeBytes { raw in
                let (record, next) = try RecordCodec.decode(raw, expectedPosition: index + 1, previousHash: hash)
                hash = next
                return record
            }
        }
    }

    /// What `forget` leaves of a salted record, given the chain hash of the record before it.
    private func forgotten(_ bytes: [UInt8], after previous: [UInt8]?, position: Int) -> [UInt8] {
        let previousHash = previous.map { $0.withUnsafeBytes { RecordCodec.storedHash(of: $0)! } } ?? RecordCodec.genesisHash
        return bytes.withUnsafeBytes { RecordCodec.forgottenForm(of: $0, previousHash: previousHash, position: position)! }
    }

    @Test(arguments: [RecordLayout.whole, .salted])
    func everyEventTypeSurvivesARoundTrip(layout: RecordLayout) throws {
        let records = everyEventType.enumerated().map { index, event in
            sampleRecord(event, position: index + 1, correlation: index % 3 == 0 ? nil : "corr", causation: index % 2 == 0 ? "cmd-\(index)" : nil)
        }
        #expect(try decode(encode(records, layout: layout)) == records)
    }

    @Test func aRecordIsCompact() {
        let record = sampleRecord(.cart(.productAdded(.init(productId: "p1", name: "Mug", unitPrice: 1250, quantity: 2))), position: 1)
        #expect(encode([record], layout: .whole)[0].count < 120)
        // A 12-byte salt, and no position (it is the record's key): 4 bytes more.
        #expect(encode([record], layout: .salted)[0].count == encode([record], layout: .whole)[0].count + 4)
    }

    @Test(arguments: [RecordLayout.whole, .salted])
    func everyFlippedBitIsDetected(layout: RecordLayout) throws {
        let records = (1...3).map {
            sampleRecord(.cart(.productAdded(.init(productId: "p\($0)", name: "Mug", unitPrice: 1250, quantity: 2))), position: $0)
        }
        let encoded = encode(records, layout: layout)
        for byteIndex in encoded[1].indices {
            var damaged = encoded
            damaged[1][byteIndex] ^= 0x10
            #expect(throws: RecordDamage.self, "byte \(byteIndex)") { try decode(damaged) }
        }
    }

    @Test func aForgottenRecordKeepsItsEnvelopeAndTheChain() throws {
        let records = (1...3).map {
            sampleRecord(
                .cart(.productAdded(.init(productId: "p\($0)", name: "Mug", unitPrice: 1250, quantity: 2))), position: $0, correlation: "c-\($0)")
        }
        var encoded = encode(records)
        encoded[1] = forgotten(encoded[1], after: encoded[0], position: 2)
        let decoded = try decode(encoded)
        #expect(decoded[0] == records[0] && decoded[2] == records[2])
        #expect(decoded[1].isForgotten && decoded[1].stream.isEmpty && decoded[1].correlationId == nil)
        #expect(decoded[1].position == 2 && decoded[1].version == records[1].version && decoded[1].eventId == records[1].eventId)
        #expect(decoded[1].timestamp == records[1].timestamp && decoded[1].event.typeName == "cart.productAdded")
        // Nothing of the payload is left: not the product, not the stream, not the correlation id.
        #expect(!String(decoding: encoded[1], as: UTF8.self).contains("Mug"))
        #expect(!String(decoding: encoded[1], as: UTF8.self).contains("c-2"))
    }

    @Test func aFlippedBitInOrNextToAForgottenRecordIsDetected() throws {
        let records = (1...3).map { sampleRecord(.navigation(.modalPresented), position: $0) }
        var encoded = encode(records)
        encoded[1] = forgotten(encoded[1], after: encoded[0], position: 2)
        for record in 1...2 {
            for byteIndex in encoded[record].indices {
                var damaged = encoded
                damaged[record][byteIndex] ^= 0x10
                #expect(throws: RecordDamage.self, "record \(record), byte \(byteIndex)") { try decode(damaged) }
            }
        }
        // A forgotten record marked live, or a live one marked forgotten, is damage too.
        var unmarked = encoded
        unmarked[1][0] = RecordLayout.salted.rawValue
        #expect(throws: RecordDamage.self) { try decode(unmarked) }
        var marked = encode(records)
        marked[1][0] = RecordCodec.forgottenMark
        #expect(throws: RecordDamage.self) { try decode(marked) }
        // A record read at another position than its own fails its check, forgotten or not.
        #expect(throws: RecordDamage.self) { try encoded[1].withUnsafeBytes { try RecordCodec.decode($0, expectedPosition: 7, previousHash: 0) } }
    }

    @Test(arguments: [RecordLayout.whole, .salted])
    func aRemovedOrReorderedRecordBreaksTheChain(layout: RecordLayout) {
        let records = (1...3).map { sampleRecord(.navigation(.modalPresented), position: $0) }
        let encoded = encode(records, layout: layout)
        #expect(throws: RecordDamage.self) { try decode([encoded[0], encoded[2]]) }
        #expect(throws: RecordDamage.self) { try decode([encoded[1], encoded[0], encoded[2]]) }
    }

    @Test func twoEncodingsOfOneRecordDifferInTheirSalt() {
        let record = sampleRecord(.navigation(.modalPresented), position: 1)
        #expect(encode([record])[0] != encode([record])[0])
        #expect(encode([record], layout: .whole)[0] == encode([record], layout: .whole)[0])
    }

    @Test func aNewerLayoutIsRefusedByName() throws {
        var encoded = encode([sampleRecord(.navigation(.modalPresented), position: 1)])
        encoded[0][0] = 5  // 3 marks a forgotten record of layout 2; 4 is layout 2 with a trace context
        do {
            _ = try decode(encoded)
            Issue.record("expected a refusal")
        } catch let damage as RecordDamage {
            #expect(damage.problem.contains("layout 5") && damage.problem.contains("upgrade FlowLog"))
        }
    }

    @Test(arguments: [RecordLayout.whole, .salted, .traced])
    func truncatedRecordsAreReportedNotCrashedOn(layout: RecordLayout) {
        let encoded = encode([sampleRecord(.cart(.paymentFailed(.init(reason: "a reason"))), position: 1)], layout: layout)[0]
        for length in 0..<encoded.count {
            #expect(throws: RecordDamage.self) { try decode([Array(encoded[0..<length])]) }
        }
    }
}

@Suite("Timestamps and event ids")
struct EnvelopeValueTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000000Z"),
        (1_798_761_600_123_456, "2027-01-01T00:00:00.123456Z"),
        (951_782_400_000_001, "2000-02-29T00:00:00.000001Z"),
        (-1, "1969-12-31T23:59:59.999999Z"),
    ])
    func formatsRFC3339(microseconds: Int64, text: String) {
        #expect(Timestamp(microseconds: microseconds).rfc3339 == text)
        #expect(Timestamp(rfc3339: text) == Timestamp(microseconds: microseconds))
    }

    @Test func parsesOffsetsAndShortFractions() {
        #expect(Timestamp(rfc3339: "2027-01-01T01:00:00.5+01:00") == Timestamp(microseconds: 1_798_761_600_500_000))
        #expect(Timestamp(rfc3339: "2027-01-01T00:00:00Z") == Timestamp(microseconds: 1_798_761_600_000_000))
        #expect(Timestamp(rfc3339: "2027-13-01T00:00:00Z") == nil)
        #expect(Timestamp(rfc3339: "yesterday") == nil)
    }

    @Test func refusesDaysTheirMonthDoesNotHave() {
        for text in ["2026-02-29T00:00:00Z", "2026-02-30T00:00:00Z", "2026-04-31T00:00:00Z", "2100-02-29T00:00:00Z", "2026-06-00T00:00:00Z"] {
            #expect(Timestamp(rfc3339: text) == nil, "\(text)")
        }
        for text in ["2028-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "2026-01-31T23:59:59Z", "2026-12-31T00:00:00Z"] {
            #expect(Timestamp(rfc3339: text) != nil, "\(text)")
        }
    }

    @Test func eventIdsPrintAndParseAsUUIDs() {
        let id = EventID(high: 0x0123_4567_89ab_cdef, low: 0xfedc_ba98_7654_3210)
        #expect(id.description == "01234567-89ab-cdef-fedc-ba9876543210")
        #expect(EventID("01234567-89AB-CDEF-FEDC-BA9876543210") == id)
        #expect(EventID("01234567-89ab-cdef-fedc-ba987654321") == nil)
        #expect(EventID("0123456789ab-cdef-fedc-ba9876543210-") == nil)
    }

    @Test func uuidV7IdsCarryVersionAndVariantAndDiffer() {
        var generator = UUIDv7Generator(clock: SteppingClock())
        let ids = (0..<1000).map { _ in generator.next() }
        #expect(Set(ids).count == 1000)
        #expect(ids.allSatisfy { ($0.high >> 12) & 0xF == 7 && $0.low >> 62 == 0b10 })
    }
}
