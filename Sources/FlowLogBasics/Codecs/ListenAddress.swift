/// An address to listen on, as `serve --listen` and `projections run --metrics-listen` take it:
/// HOST:PORT, an IPv6 host in brackets ([::1]:8080), a port from 0 (any free one) through 65535.
/// Read as bytes, not characters: a bracket followed by a combining mark is one character, and the
/// host a text named must not depend on what follows its bracket.
package struct ListenAddress: Equatable, CustomStringConvertible {
    package let host: String
    package let port: Int

    /// An address a listener is bound to (its port as the system gave it).
    package init(host: String, port: Int) {
        (self.host, self.port) = (host, port)
    }

    package init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard let colon = bytes.lastIndex(of: UInt8(ascii: ":")) else { return nil }
        let digits = bytes[(colon + 1)...]
        guard (1...5).contains(digits.count), digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let port = Int(String(decoding: digits, as: UTF8.self)), port <= 65_535
        else { return nil }
        var host = bytes[..<colon]
        if host.first == UInt8(ascii: "[") {
            guard host.last == UInt8(ascii: "]"), host.count > 2 else { return nil }
            host = host.dropFirst().dropLast()
        }
        guard !host.isEmpty else { return nil }
        (self.host, self.port) = (String(decoding: host, as: UTF8.self), port)
    }

    /// The address as it is given: an IPv6 host (or one that begins with a bracket) in brackets.
    package var description: String {
        host.utf8.contains(UInt8(ascii: ":")) || host.utf8.first == UInt8(ascii: "[") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// What `serve` and a runner's metrics say they listen on: `http://127.0.0.1:8080`.
    package var url: String { "http://\(self)" }
}
