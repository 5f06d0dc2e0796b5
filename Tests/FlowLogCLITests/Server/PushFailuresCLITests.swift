#if Network
    import FlowLogBasics
    import FlowLogSystem
    import FlowLogTesting
    import Foundation
    import Testing

    /// What `push` meets on the way (issue 41, item 5): answers lost after the server committed, the
    /// server restarted in the middle, a long time offline, and a PostgreSQL server log. Each time every
    /// event is on the server exactly once, in version order, and both logs verify.
    @Suite("push: whatever fails", .serialized)
    struct PushFailuresCLITests {
        private static let repository = FlowLogProcess.fixtures.deletingLastPathComponent()

        /// Each stream's versions on the server hold exactly the device's events.
        static func expectExactlyOnce(server: String, device: String) throws {
            let stored = try PushPullCLITests.events(server)
            let sent = try PushPullCLITests.events(device)
            #expect(stored.count == sent.count && Set(stored) == Set(sent), "\(stored.count) stored, \(sent.count) sent")
            var next: [Substring: Int] = [:]
            for line in stored {
                let parts = line.split(separator: " ")
                let expected = (next[parts[0]] ?? 0) + 1
                #expect(Int(parts[1]) == expected, "\(parts[0]) in version order")
                next[parts[0]] = expected
            }
            #expect(try FlowLogProcess.run(["verify", "--db", server]).status == 0)
            #expect(try FlowLogProcess.run(["verify", "--db", device]).status == 0)
        }

        @Test func answersLostAfterTheServerCommittedAreAcknowledgedAsDuplicates() throws {
            let folder = TemporaryDirectory()
            let device = folder.child("device")
            try PushPullCLITests.deviceLog(device, streams: 30, commands: 40)
            let server = try ServedLog(arguments: ["--key-file", try PushPullCLITests.keyFile(in: folder)])
            let portFile = folder.child("proxy.port")
            let proxy = Process()
            proxy.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            proxy.arguments = [
                "python3", Self.repository.appendingPathComponent("Tests/sync/drop_answers_proxy.py").path, String(server.port), portFile, "--every",
                "4",
            ]
            try proxy.run()
            // SIGKILL: the test process may hand its children a mask that blocks SIGTERM.
            defer {
                kill(proxy.processIdentifier, SIGKILL)
                proxy.waitUntilExit()
            }
            var port = ""
            for _ in 0..<200 where port.isEmpty {
                usleep(25_000)
                port = (try? String(contentsOfFile: portFile, encoding: .utf8)) ?? ""
            }
            let pushed = try FlowLogProcess.run(["push", "--db", device, "--to", "http://127.0.0.1:\(port)", "--batch", "25", "--format", "json"])
            #expect(pushed.status == 0, "\(pushed.stdout)\(pushed.stderr)")
            let dropped = ((try? String(contentsOfFile: portFile + ".dropped", encoding: .utf8)) ?? "").split(separator: "\n")
            #expect(dropped.count >= 10, "the proxy lost \(dropped.count) answers")
            guard case .integer(let duplicates)? = (try JSONParser.parse(pushed.stdout))["duplicates"] else {
                Issue.record("no duplicates count")
                return
            }
            #expect(duplicates > 0, "a batch whose answer was lost was acknowledged as duplicates")
            try Self.expectExactlyOnce(server: server.db, device: device)
        }

        @Test func theServerRestartedInTheMiddleLosesNothingAndStoresNothingTwice() throws {
            let folder = TemporaryDirectory()
            let device = folder.child("device")
            try PushPullCLITests.deviceLog(device, streams: 40, commands: 100)
            let key = try PushPullCLITests.keyFile(in: folder)
            let db = folder.child("server")
            var server: ServedLog? = try ServedLog(db: db, arguments: ["--key-file", key])
            let port = server!.port
            let push = try FlowLogProcess.start(["push", "--db", device, "--to", "http://127.0.0.1:\(port)", "--batch", "20"], piped: true)
            usleep(300_000)
            #expect(server!.stop(SIGKILL) != 0)
            server = nil
            usleep(500_000)
            let restarted = try ServedLog(db: db, arguments: ["--key-file", key, "--listen", "127.0.0.1:\(port)"])
            push.process.waitUntilExit()
            #expect(push.process.terminationStatus == 0, "\(push.readOutput())")
            _ = restarted.stop(SIGTERM)
            try Self.expectExactlyOnce(server: db, device: device)
        }

        @Test func aForgetRacingTheIngestOfTheSameStreamNeverBringsItBack() throws {
            let folder = TemporaryDirectory()
            let device = folder.child("device")
            try PushPullCLITests.deviceLog(device, streams: 1, commands: 3_000)
            let server = try ServedLog(arguments: ["--key-file", try PushPullCLITests.keyFile(in: folder)])
            let push = try FlowLogProcess.start(["push", "--db", device, "--to", server.base, "--batch", "5"], piped: true)
            // Forgotten as soon as the first batch is there, while the others keep coming.
            var forgotten = false
            for _ in 0..<400 where !forgotten {
                forgotten = try server.request("DELETE", "/streams/phone-0").status == 200
                if !forgotten { usleep(10_000) }
            }
            #expect(forgotten)
            let output = push.readOutput()
            #expect(push.process.terminationStatus == 1 && output.contains("refused phone-0 (gone)"), "\(output)")
            #expect(try server.get("/streams/phone-0").status == 404, "the forgotten stream never came back")
            #expect(try FlowLogProcess.run(["verify", "--db", server.db]).status == 0)
        }

        @Test func tenThousandActionsRecordedOfflineAreDeliveredOnceTheServerIsBack() throws {
            let folder = TemporaryDirectory()
            let device = folder.child("device")
            try PushPullCLITests.deviceLog(device, streams: 100, commands: 100)
            let offline = try FlowLogProcess.run(["push", "--db", device, "--to", "http://127.0.0.1:9", "--retry-for", "0.5"])
            #expect(offline.status == 74, "\(offline.stderr)")
            let server = try ServedLog(arguments: ["--key-file", try PushPullCLITests.keyFile(in: folder)])
            let pushed = try FlowLogProcess.run(["push", "--db", device, "--to", server.base])
            #expect(pushed.status == 0 && pushed.stdout.contains("10000 events appended"), "\(pushed.stdout)\(pushed.stderr)")
            try Self.expectExactlyOnce(server: server.db, device: device)
        }

        @Test func onAPostgreSQLServerLogAKilledPushStartedAgainDeliversEveryEventOnce() throws {
            let folder = TemporaryDirectory()
            let device = folder.child("device")
            try PushPullCLITests.deviceLog(device, streams: 20, commands: 60)
            let url = PostgresServer.shared.url()
            let server = try ServedLog(db: url, arguments: ["--key-file", try PushPullCLITests.keyFile(in: folder)])
            let push = try FlowLogProcess.start(["push", "--db", device, "--to", server.base, "--batch", "10"])
            usleep(400_000)
            push.kill()
            let again = try FlowLogProcess.run(["push", "--db", device, "--to", server.base])
            #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
            let second = try FlowLogProcess.run(["push", "--db", device, "--to", server.base])
            #expect(second.stdout.contains("0 events appended"), "\(second.stdout)")
            try Self.expectExactlyOnce(server: url, device: device)
            // A forget racing the ingest of the same stream: never brought back.
            #expect(try server.request("DELETE", "/streams/phone-3").status == 200)
            let late = try FlowLogProcess.run(["push", "--db", device, "--to", server.base, "--stream", "phone-3"])
            #expect(late.status == 1 && late.stdout.contains("gone"), "\(late.stdout)")
            #expect(try server.get("/streams/phone-3").status == 404)
        }
    }
#endif
