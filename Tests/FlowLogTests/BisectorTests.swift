import FlowDomain
import FlowLogBasics
import FlowLogHistory
import FlowLogStore
import FlowLogTesting
import Testing

@Suite("Bisect with skipped versions")
struct BisectorTests {
    private func event(_ version: Int) -> RecordedEvent {
        RecordedEvent(
            position: version, stream: "s", version: version, eventId: EventID(high: 0, low: UInt64(version)),
            timestamp: Timestamp(microseconds: 0), actor: .user, event: .navigation(.modalDismissed))
    }

    /// Versions from `firstBad` on are bad; the ones in `skipped` cannot be judged. The answer is the
    /// first bad version exactly when neither it nor the version before it is skipped; otherwise it is
    /// the range from just after the last judgeable good version to the first judgeable bad one.
    @Test func pinsTheFirstBadVersionOrNamesTheSmallestRangeSkipsAllow() throws {
        var rng = SplitMix64(seed: 125)
        for _ in 0..<2_000 {
            let versions = Int.random(in: 1...60, using: &rng)
            let firstBad = Int.random(in: 1...versions, using: &rng)
            let skipped = Set((1..<versions).filter { _ in Int.random(in: 0..<4, using: &rng) == 0 })
            var judged: [Int] = []
            let outcome = try Bisector.bisect(versions: versions, state: { _ in FlowDecider.initialState }, event: event) { version, _ in
                judged.append(version)
                return skipped.contains(version) ? .skip : version >= firstBad ? .bad : .good
            }
            let lastGood = (0..<firstBad).last { $0 == 0 || !skipped.contains($0) }!
            let firstJudgeableBad = (firstBad...versions).first { !skipped.contains($0) }!
            let label = "\(versions) versions, first bad \(firstBad), skipped \(skipped.sorted())"
            #expect(Set(judged).count == judged.count, "no version is judged twice: \(label)")
            if lastGood == firstBad - 1 && firstJudgeableBad == firstBad {
                guard case .found(let culprit) = outcome else {
                    Issue.record("not found: \(label)")
                    continue
                }
                #expect(culprit.record.version == firstBad, "\(label)")
            } else {
                guard case .undecided(let candidates, _) = outcome else {
                    Issue.record("not undecided: \(label)")
                    continue
                }
                #expect(candidates == (lastGood + 1)...firstJudgeableBad, "\(label)")
            }
        }
    }

    @Test func aSkippedFinalStateLeavesNothingKnownBad() throws {
        let outcome = try Bisector.bisect(versions: 5, state: { _ in FlowDecider.initialState }, event: event) { _, _ in .skip }
        guard case .finalStateSkipped(let version, let reconstructions) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(version == 5 && reconstructions == 1)
    }
}
