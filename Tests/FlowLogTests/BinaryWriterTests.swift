@testable import FlowLog
import LMDB
import Testing

/// `BinaryWriter` keeps its bytes in a `ByteBuffer` (one allocation, shared between copies until one
/// writes); it must still behave as a value.
@Suite("Binary writer")
struct BinaryWriterTests {
    @Test func aCopyThatWritesLeavesTheOriginalAsItWas() {
        var original = BinaryWriter(capacity: 4)
        original.write(UInt8(1))
        var copy = original
        copy.write(UInt8(2))
        copy.write(UInt64(0x0102_0304_0506_0708))
        #expect(original.bytes == [1])
        #expect(copy.bytes == [1, 2, 8, 7, 6, 5, 4, 3, 2, 1])
        var reset = copy
        reset.reset()
        #expect(reset.count == 0)
        #expect(copy.count == 10, "resetting a copy keeps the other's bytes")
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
