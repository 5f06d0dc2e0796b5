import FlowLogSystem
import FlowLogTesting
import Foundation

/// `flowlog serve --listen 127.0.0.1:0` on a log of its own, started as a user would start it; the
/// bound address is read from its standard output.
final class ServedLog: @unchecked Sendable {
    let folder: TemporaryDirectory
    let db: String
    let process: Process
    let port: UInt16
    let base: String
    let stderrPath: String

    /// `prepare` runs before the server starts (import fixtures, play the demo); `db` is an LMDB
    /// folder of its own unless given (a `postgres://` URL). `command`: another command that listens
    /// (`projections run --follow --metrics-listen 127.0.0.1:0`), which says where after `announcement`.
    init(
        db given: String? = nil, arguments: [String] = [], command: [String] = ["serve", "--listen", "127.0.0.1:0"],
        announcement: String = "listening on http://127.0.0.1:", environment: [String: String] = [:],
        prepare: (String) throws -> Void = { _ in }
    ) throws {
        folder = TemporaryDirectory(prefix: "flowlog-serve")
        db = given ?? folder.child("log")
        try prepare(db)
        let out = folder.child("serve.out")
        stderrPath = folder.child("serve.err")
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process = Process()
        process.executableURL = FlowLogProcess.executable
        process.arguments = command + ["--db", db] + arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardOutput = FileHandle(forWritingAtPath: out)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        try process.run()
        var found: UInt16?
        for _ in 0..<400 {
            let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            if let range = text.range(of: announcement) {
                found = UInt16(text[range.upperBound...].prefix { $0.isNumber })
                break
            }
            if !process.isRunning { break }
            usleep(25_000)
        }
        guard let found else {
            if process.isRunning { process.terminate() }
            throw ServeFailure(message: "flowlog serve did not start: \((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")")
        }
        port = found
        base = "http://127.0.0.1:\(found)"
    }

    struct ServeFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    func request(_ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = []) throws -> HTTPResult {
        try RawHTTP.request(port: port, method: method, path: path, headers: headers, body: body)
    }

    func get(_ path: String, headers: [String: String] = [:]) throws -> HTTPResult { try request("GET", path, headers: headers) }

    func post(_ path: String, json: String, headers: [String: String] = [:]) throws -> HTTPResult {
        try request("POST", path, headers: ["Content-Type": "application/json"].merging(headers) { $1 }, body: Array(json.utf8))
    }

    func postNDJSON(_ path: String, _ text: String, headers: [String: String] = [:]) throws -> HTTPResult {
        try request("POST", path, headers: ["Content-Type": "application/x-ndjson"].merging(headers) { $1 }, body: Array(text.utf8))
    }

    func headPosition() throws -> Int {
        guard case .integer(let head)? = try get("/health").json["headPosition"] else { return -1 }
        return head
    }

    /// Sends `signal` and waits for the process to end; returns its exit status.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM) -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// A plain HTTP/1.1 client over a socket: one request a connection (`Connection: close`), so the
/// tests see exactly the bytes the server sent.
enum RawHTTP {
    /// `receiveBuffer`: set before connecting, so the window the server sees is that small too.
    static func connect(port: UInt16, timeout: Double = 30, receiveBuffer: Int32? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(message: "socket: \(errno)") }
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { FlowLogSystem.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let error = errno
            close(fd)
            throw Failure(message: "connect: \(String(cString: strerror(error)))")
        }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    struct Failure: Error, CustomStringConvertible {
        let message: String
        var refusedEarly = false
        var description: String { message }
    }

    static func send(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { FlowLogSystem.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(message: "send: \(String(cString: strerror(errno)))", refusedEarly: errno == EPIPE || errno == ECONNRESET)
            }
            offset += written
        }
    }

    /// Everything until the server closes (or `timeout` without a byte).
    static func readAll(_ fd: Int32) -> [UInt8] {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 {
                if count < 0, errno == EINTR { continue }
                return result
            }
            result.append(contentsOf: buffer[0..<count])
        }
    }

    static func requestBytes(method: String, path: String, headers: [String: String], body: [UInt8]) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }

    static func request(port: UInt16, method: String, path: String, headers: [String: String] = [:], body: [UInt8] = [], timeout: Double = 60) throws
        -> HTTPResult
    {
        let fd = try connect(port: port, timeout: timeout)
        defer { close(fd) }
        do {
            try send(fd, requestBytes(method: method, path: path, headers: headers, body: body))
        } catch let failure as Failure where failure.refusedEarly {
            // The server answered (413 from Content-Length) and closed before the whole body was
            // sent: its answer is still there to read.
        }
        return try parse(readAll(fd))
    }

    static func parse(_ bytes: [UInt8]) throws -> HTTPResult {
        guard let end = find(bytes, Array("\r\n\r\n".utf8), from: 0) else {
            throw Failure(message: "no response head in \(bytes.count) bytes: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
        let head = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        let headers = head.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = Array(bytes[(end + 4)...])
        if headers.contains(where: { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased().contains("chunked") }) {
            body = dechunk(body)
        }
        return HTTPResult(status: status, headers: headers, body: body)
    }

    static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        while let lineEnd = find(bytes, [13, 10], from: index) {
            let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";")[0], radix: 16) ?? 0
            if size == 0 { break }
            let start = lineEnd + 2
            guard start + size <= bytes.count else {
                result.append(contentsOf: bytes[start...])
                break
            }
            result.append(contentsOf: bytes[start..<start + size])
            index = start + size + 2
        }
        return result
    }

    static func find(_ bytes: [UInt8], _ needle: [UInt8], from: Int) -> Int? {
        guard bytes.count >= needle.count, from <= bytes.count - needle.count else { return nil }
        var index = from
        while index <= bytes.count - needle.count {
            if bytes[index] == needle[0], Array(bytes[index..<index + needle.count]) == needle { return index }
            index += 1
        }
        return nil
    }
}

/// A server-sent-events reader on its own socket: reads frames as they come.
final class EventStreamReader {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var headerSeen = false
    private(set) var status = 0
    private(set) var closed = false

    init(port: UInt16, path: String, headers: [String: String] = [:], timeout: Double = 10) throws {
        fd = try RawHTTP.connect(port: port, timeout: timeout)
        try RawHTTP.send(fd, RawHTTP.requestBytes(method: "GET", path: path, headers: headers, body: []))
    }

    deinit { close(fd) }

    /// Reads until `count` events have come (or the stream ends or times out); returns their ids and data.
    func events(_ count: Int) -> [(id: Int, data: String)] {
        var found: [(Int, String)] = []
        while found.count < count {
            if let frame = nextFrame() {
                if let id = frame.id { found.append((id, frame.data)) }
            } else {
                break
            }
        }
        return found
    }

    /// The next frame (`id`, `data`, or a comment), `nil` at the end of the stream or after the timeout.
    func nextFrame() -> (id: Int?, data: String, comment: String?)? {
        while true {
            if !headerSeen, let end = RawHTTP.find(buffer, Array("\r\n\r\n".utf8), from: 0) {
                let head = String(decoding: buffer[0..<end], as: UTF8.self)
                status = Int(head.split(separator: " ")[1]) ?? 0
                buffer.removeFirst(end + 4)
                headerSeen = true
            }
            if headerSeen, let decoded = decodeChunks(), let end = RawHTTP.find(decoded, [10, 10], from: 0) {
                let frame = String(decoding: decoded[0..<end], as: UTF8.self)
                consume(end + 2)
                var id: Int?
                var data = ""
                var comment: String?
                for line in frame.split(separator: "\n") {
                    if line.hasPrefix("id: ") { id = Int(line.dropFirst(4)) }
                    if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
                    if line.hasPrefix(":") { comment = String(line.dropFirst()) }
                }
                return (id, data, comment)
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 {
                if count < 0, errno == EINTR { continue }
                closed = count == 0
                return nil
            }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Body bytes decoded from complete chunks so far (the raw buffer keeps the chunk framing).
    private var decodedPending: [UInt8] = []
    private func decodeChunks() -> [UInt8]? {
        while let lineEnd = RawHTTP.find(buffer, [13, 10], from: 0) {
            guard let size = Int(String(decoding: buffer[0..<lineEnd], as: UTF8.self).split(separator: ";").first ?? "", radix: 16) else { break }
            if size == 0 { break }
            let start = lineEnd + 2
            guard buffer.count >= start + size + 2 else { break }
            decodedPending.append(contentsOf: buffer[start..<start + size])
            buffer.removeFirst(start + size + 2)
        }
        return decodedPending
    }

    private func consume(_ count: Int) { decodedPending.removeFirst(count) }
}
