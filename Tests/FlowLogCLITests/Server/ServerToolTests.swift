import FlowLogTesting
import Foundation
import Testing

/// The server against tools outside Swift: schemathesis checks every operation of
/// docs/openapi.json against the running server (no 5xx, every status, content type, header and
/// body as documented), and Selenium drives the inspector in headless Chromium through the
/// journeys of Tests/inspector/README.md. `scripts/test` installs both (scripts/ensure-deps); a
/// missing tool fails these tests rather than skipping them.
@Suite("serve: schemathesis and the browser")
struct ServerToolTests {
    private static let repository = FlowLogProcess.fixtures.deletingLastPathComponent()

    /// Runs `program` (found on PATH) with its output in a file; returns its status and the output's tail.
    /// It waits for the exit without holding a thread: the tools take seconds, and the tests run
    /// on as many threads as there are cores (two here), which other tests can use meanwhile.
    private func run(_ program: String, _ arguments: [String], in folder: TemporaryDirectory, timeout: TimeInterval) async throws -> (
        status: Int32, tail: String
    ) {
        let log = folder.child("\(program).log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let output = FileHandle(forWritingAtPath: log)!
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        process.standardOutput = output
        process.standardError = output
        // In the test's folder: schemathesis leaves a .schemathesis/ folder where it runs.
        process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
        var environment = ProcessInfo.processInfo.environment
        environment["SCHEMATHESIS_HOOKS"] = "hooks"
        environment["PYTHONPATH"] = Self.repository.appendingPathComponent("Tests/schemathesis").path
        process.environment = environment
        let exited = AsyncStream<Void> { continuation in
            process.terminationHandler = { _ in continuation.finish() }
        }
        try process.run()
        let inTime = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in exited {}
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(timeout))
                return false
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
        if !inTime { process.terminate() }
        process.waitUntilExit()
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return (process.terminationStatus, String(text.suffix(3000)))
    }

    /// Positive and negative cases from the document, for every operation but the endless event
    /// stream (a request that never ends is no case for a fuzzer; ServerSubscribeTests covers it).
    /// One worker: Python 3.11's `ast` is not safe across threads, and hypothesis parses lambdas
    /// ("AST constructor recursion depth mismatch" with two). Tests/schemathesis/hooks.py writes NDJSON bodies.
    @Test func schemathesisFindsNoServerErrorAndNoResponseOutsideTheDocument() async throws {
        let folder = TemporaryDirectory()
        // With the pseudonym key, so that the sync routes take events rather than answer 501.
        let key = folder.child("key")
        try Data(repeating: 0x6B, count: 32).write(to: URL(fileURLWithPath: key))
        let server = try ServedLog(arguments: ["--key-file", key], prepare: FlowLogProcess.inspectorLog)
        let (status, tail) = try await run(
            "schemathesis",
            [
                "run", "\(server.base)/openapi.json", "--url", server.base,
                "--checks",
                "not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance",
                "--exclude-path", "/events/subscribe",
                "--phases", "examples,coverage,fuzzing", "--max-examples", "6", "--seed", "17", "--workers", "1",
                "--request-timeout", "20", "--no-color", "--generation-database", "none",
            ], in: folder, timeout: 240)
        #expect(status == 0, "schemathesis (last lines):\n\(tail)")
        #expect(tail.contains("passed"), "schemathesis printed no summary:\n\(tail)")
        #expect(!server.stderr.contains(#""status":"500""#), "no request ended in a 500")
        // Without a token file every route is open, DELETE /streams/{stream} too: schemathesis forgets
        // the document's example stream, and the operations after it get the documented 404.
        let forgets = server.stderr.split(separator: "\n").filter {
            $0.contains(#""method":"DELETE""#) && $0.contains(#""route":"/streams/{stream}""#)
        }
        #expect(forgets.contains { $0.contains(#""status":"200""#) }, "schemathesis forgot no stream")
        #expect(try FlowLogProcess.run(["verify", "--db", server.db]).status == 0)
    }

    @Test func theInspectorWorksInHeadlessChromium() async throws {
        let server = try ServedLog(prepare: FlowLogProcess.inspectorLog)
        let folder = TemporaryDirectory()
        let downloads = folder.child("downloads")
        try FileManager.default.createDirectory(atPath: downloads, withIntermediateDirectories: true)
        let screenshot = ProcessInfo.processInfo.environment["FLOWLOG_SCREENSHOT"] ?? folder.child("inspector.png")
        let (status, tail) = try await run(
            "python3",
            [
                Self.repository.appendingPathComponent("Tests/inspector/test_inspector.py").path, "--base", server.base, "--db", server.db,
                "--flowlog", FlowLogProcess.executable.path, "--downloads", downloads, "--screenshot", screenshot,
            ], in: folder, timeout: 240)
        #expect(status == 0, "test_inspector.py (last lines):\n\(tail)")
        #expect(tail.contains(" 0 failed"), "\(tail)")
        #expect(FileManager.default.fileExists(atPath: screenshot))
    }
}
