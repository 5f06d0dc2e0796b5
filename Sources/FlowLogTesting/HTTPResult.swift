import FlowLog

/// An HTTP answer as the server's tests read it: status, headers by name, the body as text, JSON
/// or lines. Both kinds of server test make them: over a socket (FlowLogCLITests' `RawHTTP`) and
/// in process (FlowLogServerTests' `ServedInProcess`).
public struct HTTPResult: Sendable {
    public let status: Int
    public let headers: [(String, String)]
    public let body: [UInt8]

    public init(status: Int, headers: [(String, String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
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
