/// How long and how often to try again something that failed for a reason that may pass: a
/// tracker's request that got 429, a 5xx or no answer, a device's push to a server that is down, a
/// writer whose streams another process moved meanwhile. One rule for all of them: a pause drawn at
/// random under a ceiling that doubles from `firstDelay` up to `maximumDelay` ("full jitter"), so
/// that parties that failed together do not come back together.
public struct RetryPolicy: Sendable {
    /// Seconds from a request's first attempt after which the caller stops (and resumes there
    /// next run) instead of trying again: an hour by default (a tracker's `--delivery-deadline`).
    public var deadline: Double
    public var firstDelay: Double
    public var maximumDelay: Double
    /// Seconds one attempt may take.
    public var timeout: Double
    /// The least share of the ceiling a pause takes: 0 is full jitter; writers that collide keep a
    /// quarter, so that a pause is never too short to let the other writer finish.
    public var leastShare: Double

    public init(
        deadline: Double = 3_600, firstDelay: Double = 0.5, maximumDelay: Double = 60, timeout: Double = 30,
        leastShare: Double = 0
    ) {
        (self.deadline, self.firstDelay, self.maximumDelay, self.timeout) = (deadline, firstDelay, maximumDelay, timeout)
        self.leastShare = leastShare
    }

    /// The pause after failed attempt `attempt` (from 1), for `random` in 0...1: a share of the
    /// ceiling between `leastShare` and all of it, never shorter than the peer's `Retry-After`.
    public func delay(afterAttempt attempt: Int, retryAfter: Double? = nil, random: Double) -> Double {
        let ceiling = min(maximumDelay, firstDelay * Double(1 << min(max(attempt, 1) - 1, 30)))
        return max(retryAfter ?? 0, ceiling * (leastShare + (1 - leastShare) * random))
    }
}
