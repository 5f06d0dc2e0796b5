import FlowLogStore

/// How `state` and `view` read the chosen stream's state: options are what was given, and turning
/// them into a log and a state is the composition's work.
extension StreamPositionOptions {
    /// The stream must be in the log, and `--at` one of its positions (or 0).
    func check(in scope: ReadingScope) throws {
        if let at { try scope.check(at, option: "--at", allowingZero: true) }
        try scope.check(stream: stream)
    }

    /// The chosen stream's state and version at `--at` (or now), from the log `--db` names, opened
    /// for reading and checked first. Now, the storage read model answers when it is current, and
    /// otherwise the stream is replayed from its nearest head or snapshot.
    func readState(_ logOptions: LogOptions) throws -> (state: LogDecider.State, version: Int) {
        let log = try Composition.openLog(logOptions, access: .readOnly)
        try check(in: ReadingScope(log: log, options: logOptions))
        let current = at == nil ? try log.currentReadModelState(of: stream) : nil
        return try current ?? log.state(ofStream: stream, throughPosition: at)
    }
}

extension StreamStateOptions {
    /// Runs `write` through `CommandExecution` with the state and version `readState` finds.
    func run(_ write: (_ state: LogDecider.State, _ version: Int, _ output: OutputWriter) throws -> Void) throws {
        try CommandExecution.run { output in
            let (state, version) = try position.readState(logOptions)
            try write(state, version, output)
        }
    }
}
