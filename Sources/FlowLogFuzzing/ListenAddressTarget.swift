import FlowLogBasics

/// The addresses `serve --listen` and `projections run --metrics-listen` take: the input is the text.
/// An address read has a host and a port of 0 through 65535, and is written back (`description`)
/// as text that reads as the same address.
enum ListenAddressTarget {
    static let target = FuzzTarget(
        name: "listen-address",
        checks:
            "a HOST:PORT text: read or refused, never a trap; an address read has a host and a port of 0–65535 and is written back as text that reads the same",
        run: run
    )

    @Sendable static func run(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let address = ListenAddress(text) else { return }
        fuzzCheck(!address.host.isEmpty && (0...65_535).contains(address.port), "\(text) read as \(address)")
        fuzzCheck(ListenAddress(address.description) == address, "\(text) read as \(address), whose text reads otherwise")
    }
}
