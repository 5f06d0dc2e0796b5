import FlowLogBasics
import FlowLogStore
import Testing

/// `BinaryWriter` owns one growing allocation (it is noncopyable, so no copy can share it).
@Suite("Binary writer")
struct BinaryWriterTests {
    @Test func resettingKeepsNothingAndWritingAgainStartsAtTheFront() {
        var writer = BinaryWriter(capacity: 4)
        writer.write(UInt8(1))
        writer.write(UInt64(0x0102_0304_0506_0708))
        #expect(writer.bytes == [1, 8, 7, 6, 5, 4, 3, 2, 1])
        writer.reset()
        #expect(writer.count == 0)
        writer.write(UInt16(0x0A0B))
        #expect(writer.bytes == [0x0B, 0x0A])
    }

    @Test func itGrowsPastItsFirstCapacityKeepingEveryByte() {
        var writer = BinaryWriter(capacity: 8)
        var expected: [UInt8] = []
        for value in 0..<5_000 {
            writer.write(UInt16(value))
            writer.writeShortString("v\(value)")
            expected += [UInt8(value & 0xFF), UInt8(value >> 8), UInt8("v\(value)".utf8.count)] + Array("v\(value)".utf8)
        }
        #expect(writer.bytes == expected)
        #expect(writer.withUnsafeBytes { Array($0) } == expected)
    }
}
