#if Network
    import Foundation
    import Testing

    /// `tasklog serve`, the program, with the inspector FlowLog's server embeds, driven in headless
    /// Chromium by Tests/inspector/test_list_inspector.py (Selenium; `scripts/test` installs it
    /// through scripts/ensure-deps, and a missing tool fails this test rather than skipping it).
    @Suite("tasklog serve and its inspector")
    struct TaskLogServeTests {
        static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("inspector/test_list_inspector.py").path

        @Test(arguments: TaskLogTests.Backend.allCases)
        func theInspectorShowsTheListsState(on backend: TaskLogTests.Backend) throws {
            let folder = try TaskLogTests.scratchFolder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let db = backend.freshLog(in: folder, named: "served")
            let commands = """
                {"type":"task.add","stream":"list-1","taskId":"t1","title":"Buy milk"}
                {"type":"task.add","stream":"list-1","taskId":"t2","title":"Call Bob"}
                {"type":"task.rename","stream":"list-1","taskId":"t1","title":"Buy oat milk"}
                {"type":"task.complete","stream":"list-1","taskId":"t1"}

                """
            #expect(try TaskLogCommandLineTests.run(["send", "--db", db], input: commands).status == 0)

            let server = Process()
            server.executableURL = TaskLogCommandLineTests.executable
            server.arguments = ["serve", "--db", db, "--listen", "127.0.0.1:0"]
            let output = Pipe()
            server.standardOutput = output
            server.standardError = FileHandle.nullDevice
            try server.run()
            defer {
                server.terminate()
                server.waitUntilExit()
            }
            // `tasklog serve: listening on http://127.0.0.1:PORT (the inspector: …)`, once it listens.
            var announced = ""
            while !announced.contains("\n"), server.isRunning {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                announced += String(decoding: chunk, as: UTF8.self)
            }
            #expect(announced.hasPrefix("tasklog serve: listening on http://127.0.0.1:"), "\(announced)")
            let base = try #require(announced.split(separator: " ").first { $0.hasPrefix("http://") }).description

            let browser = try TaskLogCommandLineTests.run(["python3", Self.script, "--base", base], program: URL(fileURLWithPath: "/usr/bin/env"))
            #expect(browser.status == 0 && browser.stdout.contains("ok"), "test_list_inspector.py:\n\(browser.stdout)\(browser.stderr)")
        }
    }
#endif
