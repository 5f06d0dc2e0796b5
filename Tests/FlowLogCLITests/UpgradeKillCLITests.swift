import FlowDomain
import FlowLog
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Foundation
import LMDB
import Testing

@testable import FlowLogLMDB

/// `flowlog upgrade` to log schema 3 rewrites every record in the transaction that raises the
/// schema: SIGKILL at any moment leaves the log as it was (schema 2, every record as before) or
/// upgraded whole (schema 3), never half.
@Suite("Upgrade to schema 3 under SIGKILL", .serialized)
struct UpgradeKillCLITests {
    /// A log of schema 2 (the whole layout) with `count` events, written by this build: the schema is
    /// set while the log is empty, as a log created by a build of schema 2 would have it.
    static func schema2Log(at path: String, count: Int) throws {
        let log = try LMDBEventLog(path: path)
        try log.environment.write { txn in
            try txn.put(log.meta, key: LMDBEventLog.schemaKey, value: Keys.littleEndian(2))
        }
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        for index in 0..<count {
            _ = try processor.handle(
                CommandEnvelope(
                    stream: "s\(index % 20)",
                    command: .cart(
                        .addProduct(
                            .init(
                                productId: "p\(index % 40)", name: nil, unitPrice: 100, quantity: 1)))))
        }
        #expect(try log.settings().logSchema == 2)
    }

    @Test func aKilledUpgradeLeavesTheOldLogOrTheWholeNewOne() throws {
        let template = TemporaryDirectory()
        let source = template.child("log")
        try Self.schema2Log(at: source, count: 30_000)
        let export = try ForgetCLITests.run(["export", "--db", source]).stdout
        var outcomes = Set<Int>()
        for delay in stride(from: 20_000, through: 260_000, by: 60_000) {
            let scratch = TemporaryDirectory()
            let db = scratch.child("log")
            try FileManager.default.copyItem(atPath: source, toPath: db)
            let upgrade = try FlowLogProcess.start(["upgrade", "--db", db, "--backup", scratch.child("backup")])
            usleep(useconds_t(delay))
            upgrade.kill()
            let log = try LMDBEventLog(path: db, access: .readOnly)
            let schema = try log.settings().logSchema
            outcomes.insert(schema)
            #expect(schema == 2 || schema == LogSettings.newestLogSchema)
            #expect(try log.checkIntegrity().isIntact, "after \(delay) µs")
            // Every record is of the schema's layout: none was rewritten without the schema, or left behind.
            let layouts = try log.environment.read { txn in
                try txn.withCursor(log.eventsDB) { cursor in
                    var seen = Set<UInt8>()
                    var entry = try cursor.first()
                    while let (_, value) = entry {
                        seen.insert(value[0])
                        entry = try cursor.next()
                    }
                    return seen
                }
            }
            // No record here carries a trace context, so a log raised to schema 5 keeps them salted
            // (layout 2, as schema 3 wrote them), not in the traced layout its schema writes them in.
            let expected = schema >= RecordLayout.saltedLogSchema ? RecordLayout.salted : RecordLayout.whole
            #expect(layouts == [expected.rawValue], "after \(delay) µs: schema \(schema), layouts \(layouts)")
            #expect(try ForgetCLITests.run(["export", "--db", db]).stdout == export)
        }
        #expect(outcomes.contains(2), "no kill landed before the upgrade's commit")
    }
}
