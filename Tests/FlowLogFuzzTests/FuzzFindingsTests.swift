import FlowDomain
import FlowLogBasics
import FlowLogStore
import Testing

/// What the fuzz targets found, each as a test that names it; the input that found it is kept in
/// `Tests/Fuzz/<target>/crashes/` too.
@Suite("Fuzz findings")
struct FuzzFindingsTests {
    /// record-codec: a record whose 64-bit timestamp lies beyond RFC 3339's years 0000 to 9999 (its
    /// checksum resealed, as anyone who can write the file can do) trapped every writer of its time:
    /// `export`, `log`, the server's JSON.
    @Test func aTimestampBeyondFourDigitYearsIsWrittenWhole() {
        #expect(Timestamp(microseconds: .max).rfc3339 == "+294247-01-10T04:00:54.775807Z")
        #expect(Timestamp(microseconds: .min).rfc3339 == "-290308-12-21T19:59:05.224192Z")
        #expect(Timestamp(microseconds: 253_402_300_800_000_000).rfc3339 == "+10000-01-01T00:00:00.000000Z")
        #expect(Timestamp(microseconds: -62_167_219_200_000_000).rfc3339 == "0000-01-01T00:00:00.000000Z")
        #expect(Timestamp(microseconds: -62_167_219_200_000_001).rfc3339 == "-0001-12-31T23:59:59.999999Z")
    }

    /// record-codec: `verify` reads a damaged record again without its checksum, at the position its
    /// key gives; a damaged key's position is negative, and the reading trapped converting it.
    @Test func aRecordReadUncheckedAtANegativePositionIsNoTrap() {
        let bytes = Self.record(version: 3)
        let read = bytes.withUnsafeBytes { RecordCodec.decodeUnverified($0, position: -5) }
        #expect(read?.position == -5)
    }

    /// record-codec: a version beyond `Int.max`, resealed, read as a negative version, which `upgrade`
    /// then trapped on when it wrote the record again. It is damage.
    @Test func aRecordOfAVersionBeyondIntMaxIsDamaged() throws {
        var bytes = Self.record(version: 3)
        withUnsafeBytes(of: (UInt64(1) << 63).littleEndian) { bytes.replaceSubrange(12..<20, with: $0) }
        bytes.removeLast(8)
        withUnsafeBytes(of: XXHash64.hash(bytes, seed: RecordCodec.genesisHash).littleEndian) { bytes.append(contentsOf: $0) }
        let damage = bytes.withUnsafeBytes { bytes in
            #expect(throws: RecordDamage.self) { try RecordCodec.decode(bytes, expectedPosition: 1, previousHash: RecordCodec.genesisHash) }
        }
        #expect(damage?.problem == "the record says it is version 9223372036854775808")
    }

    /// A record of layout 1 at position 1 (its version at bytes 12 to 19).
    private static func record(version: Int) -> [UInt8] {
        let event = RecordedEvent(
            position: 1, stream: "s1", version: version, eventId: EventID(high: 1, low: 2),
            timestamp: Timestamp(microseconds: 0), actor: .user,
            event: .navigation(.loginSucceeded))
        var writer = BinaryWriter()
        var salts = RecordSalts()
        _ = RecordCodec.encode(event, previousHash: RecordCodec.genesisHash, layout: .whole, salts: &salts, into: &writer)
        return writer.bytes
    }
}
