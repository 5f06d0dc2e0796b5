import ArgumentParser
import FlowLog

struct ViewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Draw what the app's screen and cart show for a stream: plain strings and flags computed from its state.")

    @OptionGroup var position: StreamPositionOptions
    @OptionGroup var format: FormatOptions
    @OptionGroup var logOptions: LogOptions

    func run() throws {
        try CommandExecution.run { output in
            let (state, version) = try position.readState(logOptions)
            let cart = ViewProjector.cart(state)
            let screen = ViewProjector.screen(state.navigation)
            switch format.format {
            case .json: output.json { ViewProjector.writeJSON(cart: cart, screen: screen, stream: position.stream, version: version, into: &$0) }
            case .text: output.lines(ViewText.lines(cart: cart, screen: screen))
            }
        }
    }
}
