import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Testing

@testable import FlowLog
@testable import FlowLogHistory

/// `flowlog upgrade` as every backend keeps it: a log of an older log schema, raised through
/// `updateSettings` to the newest its backend writes (`LogCapabilities.newestLogSchema`), keeps
/// every event, fingerprint, state, receipt and read model, verifies, and takes what its old
/// schema refused; a schema is never lowered. Raising to schema 3 rewrites every record into the
/// salted layout (LMDB, PostgreSQL), after which the log forgets.
///
/// What is each backend's own stays in its suite: the bytes of the rewritten records, SIGKILL
/// during an upgrade and the schema-1 and schema-3 logs kept as bytes (`UpgradeKillCLITests`,
/// `ForgetCLITests`, `KindsV1FixtureTests`), an upgrade that fails midway and one made by another
/// process (`PostgresForgetTests`), LMDB's batch records from schema 4 (`BatchRecordTests`), and
/// the command's backup and repairs (`EventEvolutionCLITests`, `KeptRowRepairCLITests`).
@Suite("Event log contract: upgrade")
struct UpgradeContractTests {
    private static func raise(_ log: any LogStore, to schema: Int) throws -> LogSettings {
        try log.updateSettings { settings, _ in
            var raised = settings
            raised.logSchema = max(settings.logSchema, schema)
            return raised
        }
    }

    @Test(arguments: LogKind.allCases, [1, 2, 3])
    func anOlderLogRaisedToTheNewestSchemaKeepsEveryAnswer(kind: LogKind, schema: Int) throws {
        let stored = try StoredLog(kind, logSchema: schema)
        #expect(try stored.open().settings().logSchema == schema)
        var commands = try StoredLogFilling.fill(try stored.open())
        let before = try LogAnswers(of: try stored.open(), commands: commands)
        #expect(before.snapshots > 0 && before.checkpoint > 0 && !before.readModels.isEmpty && before.receipts.count == commands.count)

        let newest = try stored.open().capabilities.newestLogSchema
        #expect(newest == LogSettings.newestLogSchema, "every backend writes the newest schema")
        #expect(try Self.raise(stored.open(), to: newest).logSchema == newest)
        stored.close()
        #expect(try stored.open().settings().logSchema == newest)
        #expect(try LogAnswers(of: try stored.open(), commands: commands) == before)
        let verified = try ReplayVerifier.verifyFingerprints(of: try stored.open())
        #expect(verified.disagreements.isEmpty && verified.events == before.events.count)

        // Raised again: nothing changes.
        #expect(try Self.raise(stored.open(), to: newest) == stored.open().settings())
        #expect(try LogAnswers(of: try stored.open(), commands: commands) == before)

        // New events chain on to the old ones, the commands the old schema refused among them.
        let processor = CommandProcessor(log: try stored.open(), clock: SteppingClock(), ids: SequentialIDGenerator(startingAfter: 1 << 40))
        let refusedBefore = [
            CommandEnvelope(
                stream: "d", commandId: "add", command: .cart(.addProduct(.init(productId: "p1", name: nil, unitPrice: 1000, quantity: 1)))),
            CommandEnvelope(
                stream: "d", commandId: "amount-off",
                command: .cart(.applyDiscount(.init(discountId: "A", percent: nil, amountOff: 100, productId: "p1")))),
        ]
        let outcomes = try processor.handle(refusedBefore)
        #expect(outcomes.allSatisfy { if case .accepted = $0 { true } else { false } }, "\(outcomes)")
        commands += refusedBefore + (try StoredLogFilling.fill(try stored.open(), events: 40, seed: 9, tag: "after-"))
        let grown = try LogAnswers(of: try stored.open(), commands: commands)
        #expect(Array(grown.events.prefix(before.events.count)) == before.events)
        #expect(try ReplayVerifier.verifyFingerprints(of: try stored.open()).disagreements.isEmpty)

        // At the newest schema every backend can forget what the old one wrote.
        let forgetting = try #require(try stored.open().capabilities.forgetting, "every backend forgets")
        let forgotten = try forgetting.forget(stream: "c")
        let report = try stored.open().checkIntegrity()
        #expect(report.isIntact && report.forgotten == forgotten.events && forgotten.events > 0, "\(report.problems)")
        #expect(try stored.open().events().filter { $0.stream != "c" } == grown.events.filter { $0.stream != "c" })
    }

    /// Until it is raised, a log of schema 1 takes what version 1 of each kind holds and refuses
    /// a command whose event needs a later version (`logUpgradeRequired`, naming `flowlog upgrade`),
    /// appending nothing; raised, the same processor takes it.
    @Test(arguments: LogKind.allCases)
    func aLogOfSchemaOneTakesWhatVersionOneHoldsAndRefusesTheRest(kind: LogKind) throws {
        let stored = try StoredLog(kind, logSchema: 1)
        let log = try stored.open()
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        let add = CommandEnvelope(stream: "s", command: .cart(.addProduct(.init(productId: "p1", name: nil, unitPrice: 1000, quantity: 1))))
        let byPercent = CommandEnvelope(stream: "s", command: .cart(.applyDiscount(.init(discountId: "P", percent: 10, productId: nil))))
        let byAmount = CommandEnvelope(
            stream: "s", command: .cart(.applyDiscount(.init(discountId: "A", percent: nil, amountOff: 100, productId: "p1"))))
        let outcomes = try processor.handle([add, byPercent, byAmount])
        guard case .accepted = outcomes[1], case .rejected(_, let refusal) = outcomes[2] else {
            Issue.record("\(outcomes)")
            return
        }
        #expect(refusal.code == .logUpgradeRequired)
        #expect(refusal.message.contains("flowlog upgrade"))
        #expect(try log.lastPosition() == 2, "the refused command appended nothing")
        _ = try log.updateSettings { settings, _ in LogSettings(logSchema: 2, defaultCurrency: settings.defaultCurrency) }
        guard case .accepted = try processor.handle(byAmount) else {
            Issue.record("refused after the upgrade")
            return
        }
        #expect(try log.lastPosition() == 3)
        #expect(try log.checkIntegrity().isIntact)
    }

    /// Asks to lower `log`'s schema, which must be refused and leave it at the newest.
    private static func refuseLowering(_ log: any LogStore) throws {
        #expect(throws: FlowLogError.self) {
            _ = try log.updateSettings { settings, _ in LogSettings(logSchema: 2, defaultCurrency: settings.defaultCurrency) }
        }
        #expect(try log.settings().logSchema == LogSettings.newestLogSchema)
    }

    /// A schema is raised, never lowered: builds of the lower schema would read records they cannot.
    @Test(arguments: LogKind.allCases)
    func aSchemaIsNeverLowered(kind: LogKind) throws {
        let stored = try StoredLog(kind)
        let commands = try StoredLogFilling.fill(try stored.open(), events: 30)
        let before = try LogAnswers(of: try stored.open(), commands: commands)
        try Self.refuseLowering(stored.open())
        #expect(try LogAnswers(of: try stored.open(), commands: commands) == before)
    }
}
