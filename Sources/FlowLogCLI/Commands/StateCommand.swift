import ArgumentParser
import FlowLogStore

struct StateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Print the projected state of one stream, now or as of a global position.")

    @OptionGroup var options: StreamStateOptions

    func run() throws {
        try options.run { state, version, output in
            let stream = options.stream
            switch options.format.format {
            // In pieces: the state of a stream with many orders is megabytes.
            case .json: try FlowJSON.writeState(state, stream: stream, version: version, to: output.sink)
            case .text: output.lines(StateText.lines(state, stream: stream, version: version))
            }
        }
    }
}
