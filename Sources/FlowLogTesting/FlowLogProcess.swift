public import Foundation

/// Runs the built `flowlog` executable as a user would: arguments, standard input, exit status,
/// and the two output streams kept apart. The CLI's tests and the server's (which compare the
/// server's answers with the command line's) share it.
public struct FlowLogProcess {
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
        public var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    /// The `flowlog` built beside this test bundle (or `$FLOWLOG_BINARY`).
    public static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["FLOWLOG_BINARY"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("flowlog")
    }

    /// Runs `flowlog` as an unprivileged user: `nobody` through `setpriv` when the tests run as root
    /// (who ignores permission bits), else as the tests' own user.
    public static var unprivileged: [String] { getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : [] }

    public static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// `launcher`: a program (with its arguments) that runs `flowlog`, such as `setpriv` as another user.
    public static func run(
        _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], in directory: String? = nil,
        launcher: [String] = []
    ) throws -> Result {
        let process = Process()
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = launcher.dropFirst() + [executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "FLOWLOG_DB")
        env.merge(environment) { $1 }
        process.environment = env
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        // Files rather than pipes: nothing can block on a full pipe, and no reader threads are needed.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("flowlog-run-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let paths = ["in", "out", "err"].map { scratch.appendingPathComponent($0).path }
        try Data((stdin ?? "").utf8).write(to: URL(fileURLWithPath: paths[0]))
        for path in paths.dropFirst() { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        let handles = [FileHandle(forReadingAtPath: paths[0])!, FileHandle(forWritingAtPath: paths[1])!, FileHandle(forWritingAtPath: paths[2])!]
        defer { for handle in handles { try? handle.close() } }
        process.standardInput = handles[0]
        process.standardOutput = handles[1]
        process.standardError = handles[2]
        try process.run()
        process.waitUntilExit()
        let outData = try Data(contentsOf: URL(fileURLWithPath: paths[1]))
        let errData = try Data(contentsOf: URL(fileURLWithPath: paths[2]))
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}

extension FlowLogProcess {
    /// The log of Tests/inspector/README.md, made at `db` as a user would: the coupon bug
    /// imported, then one demo. The server's tests serve it.
    public static func inspectorLog(_ db: String) throws {
        _ = try run(["import", fixtures.appendingPathComponent("bugs/coupon-over-100.ndjson").path, "--db", db])
        _ = try run(["demo", "--db", db])
    }
}

extension FlowLogProcess {
    /// A `flowlog` left running, for tests that kill it or feed it while it runs.
    public struct Started {
        public let process: Process
        private let input: Pipe?
        private let output: Pipe?

        init(process: Process, input: Pipe?, output: Pipe?) { (self.process, self.input, self.output) = (process, input, output) }

        /// Writes `lines` to its standard input from a thread of its own, then closes it.
        public func feed(_ lines: [String]) {
            guard let input else { return }
            let text = Data((lines.joined(separator: "\n") + "\n").utf8)
            Thread {
                try? input.fileHandleForWriting.write(contentsOf: text)
                try? input.fileHandleForWriting.close()
            }.start()
        }

        /// Its standard output to the end, once it has exited.
        public func readOutput() -> String {
            let text = output.map { String(decoding: $0.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) } ?? ""
            process.waitUntilExit()
            return text
        }

        /// SIGKILL, then waits for it.
        public func kill() {
            if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    /// Starts `flowlog` and returns at once. With `piped`, its standard input and output are pipes
    /// (`Started.feed`, `readOutput`); else it reads nothing and its output is discarded.
    public static func start(_ arguments: [String], piped: Bool = false) throws -> Started {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "FLOWLOG_DB")
        process.environment = environment
        let (input, output) = piped ? (Pipe(), Pipe()) : (nil, nil)
        process.standardInput = input ?? FileHandle.nullDevice
        process.standardOutput = output ?? FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return Started(process: process, input: input, output: output)
    }
}
