import FlowLog
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
}
