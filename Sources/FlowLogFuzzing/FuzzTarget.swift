/// One fuzz target: a parser or decoder of untrusted input, and what must hold for every input it is
/// given. `run` returns normally for every input; a broken rule stops the process (`FuzzCheck`), which
/// is what libFuzzer reports as a crash and what the corpus replay test sees as a failure.
package struct FuzzTarget: Sendable {
    /// The name `scripts/fuzz` and `flowlog-fuzz` take, and the folder of its corpus in `Tests/Fuzz/`.
    package let name: String
    /// What the target asserts, in a sentence, for `scripts/fuzz --list`.
    package let checks: String
    package let run: @Sendable (UnsafeRawBufferPointer) -> Void

    package init(name: String, checks: String, run: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        (self.name, self.checks, self.run) = (name, checks, run)
    }

    /// Runs `bytes` through the target.
    package func run(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { run($0) }
    }
}

/// Every fuzz target, by name: a new parser of untrusted input joins this list.
package enum FuzzTargets {
    package static let all: [FuzzTarget] = [
        CommandReaderTarget.target,
        RecordCodecTarget.target,
        JSONValueTarget.target,
        ExportLineTarget.target,
        CSVTarget.target,
        StateCodecTarget.target,
        DecodeFoldTarget.target,
        TokenFileTarget.target,
        PostgresURLTarget.target,
        RetentionPeriodTarget.target,
        ListenAddressTarget.target,
        TraceparentTarget.target,
    ]

    package static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}

/// A rule a fuzz target holds: broken, it stops the process with the rule's words, so that libFuzzer
/// saves the input and the replay test fails on it. A function rather than `precondition`, so that
/// the words survive every optimisation level.
@inline(__always)
package func fuzzCheck(_ condition: Bool, _ rule: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    if !condition { fatalError("fuzz rule broken: \(rule())", file: file, line: line) }
}
