import ArgumentParser
import FlowLog

struct StateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Print the projected state of one stream, now or as of a global position.")

    @OptionGroup var position: StreamPositionOptions
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func run() throws {
        try CommandExecution.run { output in
            let log = try Composition.openLog(logOptions, access: .readOnly)
            let (stream, at) = (position.stream, position.at)
            try position.check(in: ReadingScope(log: log, options: logOptions))
            // The storage read model answers when it is current; otherwise the stream is replayed.
            let current = at == nil ? try StorageProjector(store: log).currentState(of: stream) : nil
            let (state, version) = try current ?? log.state(ofStream: stream, throughPosition: at)
            switch format.format {
            // In pieces: the state of a stream with many orders is megabytes.
            case .json: try FlowJSON.writeState(state, stream: stream, version: version, to: output.sink)
            case .text: output.lines(StateText.lines(state, stream: stream, version: version))
            }
        }
    }
}
