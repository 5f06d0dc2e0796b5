/// An address to listen on, as `serve --listen` and `projections run --metrics-listen` take it:
/// HOST:PORT, an IPv6 host in brackets ([::1]:8080), a port from 0 (any free one) through 65535.
struct ListenAddress: Equatable {
    let host: String
    let port: Int

    init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        guard let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port), !host.isEmpty else { return nil }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return nil }
            host = String(host.dropFirst().dropLast())
        }
        (self.host, self.port) = (host, port)
    }
}
