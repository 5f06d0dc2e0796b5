import FlowDomain
import FlowLog
import FlowLogBasics
import FlowLogLMDB
import FlowLogMemory
import FlowLogTesting
import Testing

/// Random command streams through the whole pipeline: the LMDB log and the in-memory log answer alike,
/// and replaying what either recorded rebuilds the state the pipeline holds.
@Suite("Pipeline properties")
struct LogAgreementPropertyTests {
    @Test(arguments: [11, 12, 13] as [UInt64])
    func lmdbAndInMemoryLogsAgree(seed: UInt64) throws {
        let folder = TemporaryDirectory()
        let lmdb = try LMDBEventLog(path: folder.child("log.lmdb"))
        let memory = InMemoryEventLog()
        let onDisk = CommandProcessor(log: lmdb, clock: SteppingClock(), ids: SequentialIDGenerator())
        let inMemory = CommandProcessor(log: memory, clock: SteppingClock(), ids: SequentialIDGenerator())
        var rng = SplitMix64(seed: seed)
        let generator = RandomCommands()
        let streams = ["s1", "s2", "s3"]
        for _ in 0..<60 {
            let batch = (0..<Int.random(in: 1...40, using: &rng)).map { _ in
                CommandEnvelope(
                    stream: streams.randomElement(using: &rng)!,
                    commandId: Int.random(in: 0..<4, using: &rng) == 0 ? "c\(Int.random(in: 0..<30, using: &rng))" : nil,
                    expectedVersion: Int.random(in: 0..<10, using: &rng) == 0 ? Int.random(in: 0..<50, using: &rng) : nil,
                    command: generator.command(using: &rng))
            }
            #expect(try onDisk.handle(batch) == inMemory.handle(batch), "seed \(seed)")
        }
        #expect(try lmdb.events() == memory.events())
        for stream in streams {
            let replayed = try lmdb.state(ofStream: stream)
            let held = try inMemory.state(of: stream)
            #expect(replayed.state == held.state && replayed.version == held.version, "seed \(seed) stream \(stream)")
            let cart = replayed.state.cart
            #expect(cart.total >= 0)
            #expect(cart.lines.allSatisfy { $0.quantity <= 999 })
        }
    }
}
