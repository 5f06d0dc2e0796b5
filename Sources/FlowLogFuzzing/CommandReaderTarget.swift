import FlowLog

/// The command line reader (`send`, `serve`'s command routes): the input is one line.
///
/// Its fast reader handles the common form and hands everything else to the general one; were they
/// ever to disagree, the same line would mean two things depending on its spacing. So on every line:
/// neither reader traps; when the fast reader returns a command, the general one returns the same
/// command; and a command read is written back (`WireCommand.encode`) into a line that reads as the
/// same command again.
enum CommandReaderTarget {
    static let target = FuzzTarget(
        name: "command-reader",
        checks:
            "a command line: the fast and the general reader give the same command or the fast one declines; a command read, written back and read again is the same",
        run: run
    )

    @Sendable static func run(_ line: UnsafeRawBufferPointer) {
        let fast = ReadingPaths.commandCommonForm(line)
        let general = ReadingPaths.commandGenerally(line)
        if let fast {
            guard case .success(let envelope) = general else {
                fuzzCheck(false, "the fast reader read \(fast), the general one refused it: \(general)")
                return
            }
            fuzzCheck(envelope == fast, "the fast reader read \(fast), the general one \(envelope)")
        }
        guard case .success(let envelope) = general else { return }
        let written = WireCommand.encode(envelope)
        let again = WireCommand.decode(written)
        fuzzCheck(again == .success(envelope), "\(envelope) written as \(written) reads back as \(again)")
    }
}
