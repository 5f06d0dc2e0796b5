public import Foundation

/// `flowlog` started in the background (a following runner), its standard output and error kept in
/// files of `folder` named after it, so a test can wait for what it says and read what it said
/// after it ended. Killed with SIGKILL when dropped, if still running.
public final class BackgroundFlowLog {
    public let process = Process()
    public let outputPath: String
    public let errorPath: String

    public init(_ arguments: [String], in folder: TemporaryDirectory, name: String) throws {
        outputPath = folder.child("\(name).out")
        errorPath = folder.child("\(name).err")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.executableURL = FlowLogProcess.executable
        process.arguments = arguments
        process.standardOutput = FileHandle(forWritingAtPath: outputPath)
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        try process.run()
    }

    public var pid: Int32 { process.processIdentifier }
    public var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    public var errors: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// Waits until its output contains `text`; false if it did not within `seconds`.
    public func waitFor(_ text: String, seconds: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if output.contains(text) { return true }
            usleep(20_000)
        }
        return false
    }

    /// Sends `signal` and waits (up to `seconds`) for it to end; its exit status, or nil if it still runs.
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM, seconds: Double = 10) -> Int32? {
        if process.isRunning { kill(process.processIdentifier, signal) }
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
