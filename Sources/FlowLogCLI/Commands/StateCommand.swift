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
            let (state, version) = try position.readState(logOptions)
            let stream = position.stream
            switch format.format {
            // In pieces: the state of a stream with many orders is megabytes.
            case .json: try FlowJSON.writeState(state, stream: stream, version: version, to: output.sink)
            case .text: output.lines(StateText.lines(state, stream: stream, version: version))
            }
        }
    }
}
