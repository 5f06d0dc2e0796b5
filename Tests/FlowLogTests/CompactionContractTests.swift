import FlowDomain
import FlowLogTesting
import Testing

@testable import FlowLogHistory

/// `flowlog compact` (`LogCompaction`) as every backend that has one keeps it: the log afterwards
/// answers as before — events and forgotten records, fingerprints, streams, states, receipts,
/// snapshots, checkpoints, read models — verifies, and takes appends that chain on. LMDB compacts a
/// closed log (the compacting copy swapped in under the log lock), PostgreSQL an open one
/// (`VACUUM FULL`); a memory log keeps no freed pages or dead rows and has no compaction.
///
/// What is each backend's own stays in its suite: LMDB's free pages left out of the file, the
/// lock that keeps other processes out and the copy a killed compaction left
/// (`LogLockAndCompactionTests`, `CompactCLITests`); PostgreSQL's deleted rows gone from the
/// relation files (`PostgresCompactCLITests`, `PostgresForgetUpgradeCLITests`).
@Suite("Event log contract: compaction")
struct CompactionContractTests {
    /// A filled log, a forgotten stream (whose old bytes are what a compaction is for), compacted:
    /// the same answers, from the log opened again after it, and the storage no larger.
    @Test(arguments: LogKind.allCases)
    func aCompactedLogAnswersAsBeforeAndTakesAppends(kind: LogKind) throws {
        let stored = try StoredLog(kind)
        var commands = try StoredLogFilling.fill(try stored.open())
        do {
            // In a scope of its own: the log it holds must be closed before the compaction.
            let forgetting = try #require(try stored.open().capabilities.forgetting, "every backend forgets")
            #expect(try forgetting.forget(stream: "b").events > 0)
        }
        let location = try stored.open().location
        let before = try LogAnswers(of: try stored.open(), commands: commands)
        #expect(before.snapshots > 0 && before.checkpoint > 0 && !before.readModels.isEmpty && before.receipts.count == commands.count)

        guard let done = try stored.compact() else {
            #expect(kind == .memory, "only the memory log has no compaction")
            #expect(try LogAnswers(of: try stored.open(), commands: commands) == before)
            return
        }
        #expect(done.location == location)
        #expect(done.bytesBefore > 0 && done.bytesAfter > 0)
        #expect(done.bytesAfter <= done.bytesBefore, "\(done)")
        stored.close()
        #expect(try LogAnswers(of: try stored.open(), commands: commands) == before)
        #expect(try ReplayVerifier.verifyFingerprints(of: try stored.open()).disagreements.isEmpty)

        // The compacted log takes appends that chain on to what it held, and compacts again.
        commands += try StoredLogFilling.fill(try stored.open(), events: 40, seed: 5, tag: "after-")
        let grown = try LogAnswers(of: try stored.open(), commands: commands)
        #expect(grown.lastPosition >= before.lastPosition + 40)
        #expect(Array(grown.records.prefix(before.records.count)) == before.records)
        let again = try #require(try stored.compact())
        #expect(again.bytesAfter <= again.bytesBefore, "\(again)")
        stored.close()
        #expect(try LogAnswers(of: try stored.open(), commands: commands) == grown)
    }

    /// An empty log compacts to an empty log, which then takes its first events.
    @Test(arguments: LogKind.allCases)
    func anEmptyLogCompactsAndThenTakesEvents(kind: LogKind) throws {
        let stored = try StoredLog(kind)
        let before = try LogAnswers(of: try stored.open(), commands: [])
        guard let done = try stored.compact() else {
            #expect(kind == .memory, "only the memory log has no compaction")
            return
        }
        #expect(done.bytesAfter <= done.bytesBefore, "\(done)")
        stored.close()
        #expect(try LogAnswers(of: try stored.open(), commands: []) == before)
        #expect(before.lastPosition == 0 && before.streams.isEmpty)
        let commands = try StoredLogFilling.fill(try stored.open(), events: 20)
        let report = try stored.open().checkIntegrity()
        #expect(try report.isIntact && report.events == stored.open().lastPosition() && report.events >= 20)
        #expect(try LogAnswers(of: try stored.open(), commands: commands).receipts.count == commands.count)
    }
}
