public import FlowLogBasics
public import Foundation

/// An HTTP answer as the server's tests read it, whether it came over a socket from the binary or
/// from the application in process: status, headers by name, the body as text, JSON or lines.
public struct HTTPResult: Sendable {
    public let status: Int
    public let headers: [(String, String)]
    public let body: [UInt8]

    public init(status: Int, headers: [(String, String)], body: [UInt8]) {
        (self.status, self.headers, self.body) = (status, headers, body)
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
    public var json: JSONValue { (try? JSONParser.parse(text)) ?? .null }
    public var lines: [String] { text.split(separator: "\n").map(String.init) }

    public func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }

    /// The `error.code` of an error body.
    public var errorCode: String? {
        guard case .string(let code)? = json["error"]?["code"] else { return nil }
        return code
    }
}

/// A token file for `flowlog serve --token-file`, with a reader, a writer, an admin and an ingest token,
/// written with `mode` (a file others can read is refused).
public func writeTokenFile(in folder: TemporaryDirectory, mode: mode_t = 0o600) throws -> String {
    let path = folder.child("tokens")
    try """
    # TOKEN SCOPES
    reader-token-0123456789abcdef read
    writer-token-0123456789abcdef write
    admin-token-0123456789abcdef read,write,admin
    ingest-token-0123456789abcdef ingest
    """.write(toFile: path, atomically: true, encoding: .utf8)
    chmod(path, mode)
    return path
}
