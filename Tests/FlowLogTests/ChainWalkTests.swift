import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Testing

/// The walk both stored backends' `verify` make: gaps, disorder and a damaged record, each named once.
@Suite struct ChainWalkTests {
    /// Records 1…count, each sealed by the hash of the one before, as a log stores them.
    private func chain(_ count: Int) -> [[UInt8]] {
        let events = RandomEvents.everyKind()
        var previous = RecordCodec.genesisHash
        var writer = BinaryWriter()
        return (1...count).map { position in
            previous = RecordCodec.encode(sampleRecord(events[position % events.count], position: position), previousHash: previous, into: &writer)
            return writer.bytes
        }
    }

    @Test func anIntactChainHasNoGapAndNoDamage() {
        var walk = ChainWalk()
        var event = RecordedEvent.placeholder
        for (index, record) in chain(20).enumerated() {
            #expect(walk.gap(before: index + 1) == nil)
            #expect(record.withUnsafeBytes { walk.decode($0, at: index + 1, into: &event) } == nil)
            #expect(event.position == index + 1)
        }
        #expect(walk.gap(through: 20) == nil)
        #expect(walk.gap(through: 22)?.position == 21, "the newest records lost")
    }

    @Test func aMissingRecordIsOneGapAndBreaksTheChainOnce() {
        let records = chain(6)
        var walk = ChainWalk()
        var event = RecordedEvent.placeholder
        var damaged: [Int] = []
        var gaps: [String] = []
        for position in [1, 2, 4, 5, 6] {
            if let gap = walk.gap(before: position) { gaps.append("\(gap.position): \(gap.detail)") }
            if records[position - 1].withUnsafeBytes({ walk.decode($0, at: position, into: &event) }) != nil { damaged.append(position) }
        }
        #expect(gaps == ["3: missing (positions 3…3 are not in the log)"])
        #expect(damaged == [4], "record 4 was sealed by 3's hash; 5 follows 4's again")
    }

    @Test func aDamagedRecordIsNamedAndTheWalkGoesOnFromWhatItStored() {
        var records = chain(5)
        records[2][records[2].count / 2] ^= 0x10
        var walk = ChainWalk()
        var event = RecordedEvent.placeholder
        var damaged: [Int] = []
        for position in 1...5 where records[position - 1].withUnsafeBytes({ walk.decode($0, at: position, into: &event) }) != nil {
            damaged.append(position)
        }
        #expect(damaged == [3])
    }

    @Test func aPositionMetAgainIsOutOfOrder() {
        var walk = ChainWalk()
        #expect(walk.gap(before: 1) == nil)
        #expect(walk.gap(before: 2) == nil)
        #expect(walk.gap(before: 2)?.detail == "out of order")
    }
}
