import FlowLogSystem
public import Foundation

/// A test server that picks a free loopback port and prints it as its first line (the vendor
/// collector, a TLS server made for one test): started through /usr/bin/env, its port read.
public enum PortPrintingServer {
    public struct NoPort: Error, CustomStringConvertible {
        public let arguments: [String]
        public var description: String { "\(arguments.prefix(2).joined(separator: " ")) did not print its port" }
    }

    /// Starts `arguments`; the caller stops the process (kill and wait) when done with it.
    public static func start(_ arguments: [String]) throws -> (process: Process, port: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 0x0A { line.append(first) }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw NoPort(arguments: arguments)
        }
        return (process, port)
    }
}
