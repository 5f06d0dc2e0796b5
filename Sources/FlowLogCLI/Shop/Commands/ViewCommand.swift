import ArgumentParser
import FlowLogProjections

struct ViewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Draw what the app's screen and cart show for a stream: plain strings and flags computed from its state.")

    @OptionGroup var options: StreamStateOptions

    func run() throws {
        try options.run { state, version, output in
            let cart = ViewProjector.cart(state)
            let screen = ViewProjector.screen(state.navigation)
            switch options.format.format {
            case .json: output.json { ViewProjector.writeJSON(cart: cart, screen: screen, stream: options.stream, version: version, into: &$0) }
            case .text: output.lines(ViewText.lines(cart: cart, screen: screen))
            }
        }
    }
}
