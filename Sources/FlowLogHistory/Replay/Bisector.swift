public import FlowLogStore

/// `flowlog bisect`: finds the first version of a stream whose state a check calls bad, in
/// O(log n) state reconstructions (each from the nearest snapshot, where the log has them).
///
/// As `git bisect run`, a check may also skip a version it cannot judge. A skipped midpoint is
/// replaced by the untested version nearest to it; when only skipped versions stand between the last
/// good and the first bad one, the first bad version cannot be pinned and the outcome names the range.
public enum Bisector {
    public enum Verdict: Sendable {
        case good
        case bad
        /// The check cannot judge this version (exit 125 of a `--run` check).
        case skip
    }

    public struct Culprit {
        public let record: RecordedEvent
        public let before: LogDecider.State
        public let after: LogDecider.State
        public let reconstructions: Int
    }

    public enum Outcome {
        /// The final state passes the check: nothing to find.
        case finalStateIsGood(version: Int, reconstructions: Int)
        case found(Culprit)
        /// The first bad version is one of `candidates`: every version in it but the last was skipped,
        /// and the one before it is good.
        case undecided(candidates: ClosedRange<Int>, reconstructions: Int)
        /// The check skipped the final state, so nothing is known to be bad.
        case finalStateSkipped(version: Int, reconstructions: Int)
    }

    /// `state(v)` gives the state after version `v` (0: the initial state); `check` judges a version's
    /// state; `event(v)` is the event that made version `v`. The initial state is taken as good, as
    /// `git bisect` takes its good commit, and the final state is judged first.
    public static func bisect(
        versions: Int, state: (Int) throws -> LogDecider.State, event: (Int) throws -> RecordedEvent,
        check: (Int, LogDecider.State) throws -> Verdict
    ) throws -> Outcome {
        var reconstructions = 1
        let final = try state(versions)
        switch try check(versions, final) {
        case .good: return .finalStateIsGood(version: versions, reconstructions: reconstructions)
        case .skip: return .finalStateSkipped(version: versions, reconstructions: reconstructions)
        case .bad: break
        }
        var good = 0
        var bad = versions
        var badState = final
        var skipped: Set<Int> = []
        while let next = nearestUntested(good: good, bad: bad, skipped: skipped) {
            let candidate = try state(next)
            reconstructions += 1
            switch try check(next, candidate) {
            case .bad:
                bad = next
                badState = candidate
            case .good:
                good = next
            case .skip:
                skipped.insert(next)
            }
        }
        guard bad - good == 1 else { return .undecided(candidates: (good + 1)...bad, reconstructions: reconstructions) }
        let before = good == 0 ? LogDecider.initialState : try state(good)
        reconstructions += good == 0 ? 0 : 1
        return .found(Culprit(record: try event(bad), before: before, after: badState, reconstructions: reconstructions))
    }

    /// As `bisect(…check:)` for a check that never skips.
    public static func bisect(
        versions: Int, state: (Int) throws -> LogDecider.State, event: (Int) throws -> RecordedEvent,
        isBad: (LogDecider.State) throws -> Bool
    ) throws -> Outcome {
        try bisect(versions: versions, state: state, event: event) { _, state in try isBad(state) ? .bad : .good }
    }

    /// The version strictly between `good` and `bad` nearest their midpoint (the lower on a tie) that
    /// has not been skipped; `nil` when none is left.
    static func nearestUntested(good: Int, bad: Int, skipped: Set<Int>) -> Int? {
        guard bad - good > 1 else { return nil }
        let middle = good + (bad - good) / 2
        for distance in 0..<(bad - good) {
            for version in [middle - distance, middle + distance] where version > good && version < bad && !skipped.contains(version) {
                return version
            }
        }
        return nil
    }
}
