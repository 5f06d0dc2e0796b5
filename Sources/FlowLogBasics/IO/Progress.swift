public import FlowLogSystem

/// A line on standard error that says how far long work has come, redrawn in place. It is shown only
/// when standard error is a terminal, so logs and pipes never see it.
public final class Progress {
    private let label: String
    private let total: Int
    private var nextUpdate = 0
    private let step: Int
    private let enabled: Bool

    /// `step`: how far apart redraws are, in the units of `total`; by default every 0.5% and at
    /// least 10,000 apart, for counts of events. Counts of larger things (sessions) give a smaller one.
    public init(label: String, total: Int, step: Int? = nil, enabled: Bool = isatty(STDERR_FILENO) == 1) {
        self.label = label
        self.total = max(total, 1)
        self.step = step ?? max(total / 200, 10_000)
        self.enabled = enabled
    }

    @inline(__always)
    public func advance(to done: Int) {
        guard enabled, done >= nextUpdate else { return }
        nextUpdate = done + step
        draw("\r\(label): \(done) of about \(total) (\(min(done * 100 / total, 99))%)")
    }

    public func finish() {
        guard enabled else { return }
        draw("\r\(label): done\u{1B}[K\n")
    }

    private func draw(_ text: String) {
        var line = text
        line.withUTF8 { _ = FlowLogSystem.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
