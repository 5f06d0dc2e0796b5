import FlowDomain
import FlowLogHistory
import FlowLogLMDB
import FlowLogTesting
import Foundation
import Testing

/// The fingerprints a build before event versions recorded still catch a reducer that changed what
/// an old log means, and still agree with today's reducers: `replay --verify` neither cries wolf
/// nor goes quiet on the kinds-v1 fixture.
@Suite("Old fingerprints against today's reducers")
struct PlantedRegressionTests {
    private func fixtureLog() throws -> (LMDBEventLog, TemporaryDirectory) {
        let scratch = TemporaryDirectory()
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/logs/kinds-v1/log").path
        try FileManager.default.copyItem(atPath: fixture, toPath: scratch.child("log"))
        return (try LMDBEventLog(path: scratch.child("log"), access: .readOnly), scratch)
    }

    @Test func todaysReducersAgreeWithEveryRecordedFingerprint() throws {
        let (log, scratch) = try fixtureLog()
        _ = scratch
        let report = try ReplayVerifier.verifyFingerprints(of: log)
        #expect(report.disagreements.isEmpty)
        #expect(report.comparisons == 64)
    }

    /// A regression planted in the reducer: a percent discount taken as one percent more.
    @Test func aPlantedRegressionIsCaughtAtItsFirstEvent() throws {
        let (log, scratch) = try fixtureLog()
        _ = scratch
        let report = try ReplayVerifier.verifyFingerprints(of: log) { state, event in
            var planted = event
            if case .cart(.discountApplied(var discount)) = event, discount.amountOff == 0 {
                discount.percent += 1
                planted = .cart(.discountApplied(discount))
            }
            FlowDecider.evolve(&state, planted)
        }
        #expect(!report.disagreements.isEmpty)
        let first = try #require(report.disagreements.first { $0.stream == "demo" })
        #expect(first.eventType == "cart.discountApplied")
        #expect(first.position == 9, "the demo's first discount")
    }

    /// And one in the currency a version 1 product upcasts to.
    @Test func aWrongUpcastDefaultIsCaught() throws {
        let (log, scratch) = try fixtureLog()
        _ = scratch
        let report = try ReplayVerifier.verifyFingerprints(of: log) { state, event in
            var planted = event
            if case .cart(.productAdded(var added)) = event {
                added.currency = "EUR"
                planted = .cart(.productAdded(added))
            }
            FlowDecider.evolve(&state, planted)
        }
        #expect(report.disagreements.count == 4, "every stream with a product: \(report.disagreements.map(\.stream))")
    }
}
