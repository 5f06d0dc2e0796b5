import FlowLogBasics
import Testing

/// The one backoff every retry uses (trackers, sync, colliding writers).
@Suite struct RetryPolicyTests {
    @Test func theCeilingDoublesFromTheFirstDelayUpToTheMaximum() {
        let policy = RetryPolicy(firstDelay: 0.5, maximumDelay: 3)
        let ceilings = (1...6).map { policy.delay(afterAttempt: $0, random: 1) }
        #expect(ceilings == [0.5, 1, 2, 3, 3, 3])
        #expect(policy.delay(afterAttempt: 10_000, random: 1) == 3, "a huge attempt number neither overflows nor passes the maximum")
    }

    @Test func fullJitterDrawsAnyShareAndALeastShareKeepsSome() {
        let full = RetryPolicy(firstDelay: 0.002, maximumDelay: 0.064)
        #expect(full.delay(afterAttempt: 3, random: 0) == 0)
        #expect(full.delay(afterAttempt: 3, random: 0.5) == 0.004)
        let writers = RetryPolicy(firstDelay: 0.002, maximumDelay: 0.064, leastShare: 0.25)
        #expect(writers.delay(afterAttempt: 3, random: 0) == 0.002)
        #expect(writers.delay(afterAttempt: 3, random: 1) == 0.008)
    }

    @Test func aPeersRetryAfterIsTheShortestPause() {
        let policy = RetryPolicy(firstDelay: 0.5, maximumDelay: 60)
        #expect(policy.delay(afterAttempt: 1, retryAfter: 7, random: 0.3) == 7)
        #expect(policy.delay(afterAttempt: 8, retryAfter: 7, random: 1) == 60)
    }
}
