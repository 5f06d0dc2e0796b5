#if Network
    import FlowLogBasics
    import FlowLogTesting
    import Foundation
    import Testing

    /// `flowlog push` and `flowlog pull` against `flowlog serve` over loopback (issue 41, items 2, 3
    /// and 5): every event on the server exactly once and in version order, whatever stops the push;
    /// a session brought back to replay offline; every bad input a clear exit.
    @Suite("push and pull")
    struct PushPullCLITests {
        /// A key file for `serve --key-file`, in `folder`.
        static func keyFile(in folder: TemporaryDirectory) throws -> String {
            let path = folder.child("key")
            try Data(repeating: 0x4B, count: 32).write(to: URL(fileURLWithPath: path))
            return path
        }

        /// A device's log of `streams` sessions, `commands` cart additions each.
        static func deviceLog(_ db: String, streams: Int, commands: Int) throws {
            var text = ""
            for stream in 0..<streams {
                for index in 0..<commands {
                    text +=
                        #"{"stream":"phone-\#(stream)","type":"cart.addProduct","productId":"p\#(index % 7)","name":"Mug","unitPrice":350,"quantity":1}"#
                        + "\n"
                }
            }
            let sent = try FlowLogProcess.run(["send", "--db", db], stdin: text)
            #expect(sent.status == 0, "\(sent.stderr)")
        }

        /// The events of `db` as (stream, version, event id, timestamp), in order.
        static func events(_ db: String) throws -> [String] {
            let exported = try FlowLogProcess.run(["export", "--db", db])
            return try exported.stdoutLines.map { line in
                let value = try JSONParser.parse(line)
                guard case .string(let stream)? = value["stream"], case .integer(let version)? = value["version"],
                    case .string(let id)? = value["eventId"], case .string(let time)? = value["timestamp"]
                else { return "unreadable \(line)" }
                return "\(stream) \(version) \(id) \(time)"
            }
        }

        @Test func everyEventArrivesOnceAndASecondPushAppendsNothing() throws {
            let folder = TemporaryDirectory()
            let device = folder.child("device")
            try Self.deviceLog(device, streams: 12, commands: 25)
            let server = try ServedLog(arguments: ["--key-file", try Self.keyFile(in: folder)])
            let first = try FlowLogProcess.run(["push", "--db", device, "--to", server.base, "--batch", "7"])
            #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
            #expect(first.stdout.contains("300 events appended, 0 already there; 12 streams delivered"), "\(first.stdout)")
            #expect(try Set(Self.events(server.db)) == Set(Self.events(device)))
            let second = try FlowLogProcess.run(["push", "--db", device, "--to", server.base, "--format", "json"])
            #expect(second.status == 0 && second.stdout.contains(#""appended":0"#) && second.stdout.contains(#""upToDate":12"#), "\(second.stdout)")
            #expect(try FlowLogProcess.run(["verify", "--db", server.db]).status == 0)
        }

        @Test func aKilledPushStartedAgainDeliversEveryEventExactlyOnce() throws {
            let folder = TemporaryDirectory()
            let device = folder.child("device")
            try Self.deviceLog(device, streams: 40, commands: 100)
            let server = try ServedLog(arguments: ["--key-file", try Self.keyFile(in: folder)])
            // Killed at several moments: each run gets a little further, then one runs to the end.
            for delay in [0.15, 0.4, 0.8] {
                let push = try FlowLogProcess.start(["push", "--db", device, "--to", server.base, "--batch", "20"])
                Thread.sleep(forTimeInterval: delay)
                push.kill()
            }
            let last = try FlowLogProcess.run(["push", "--db", device, "--to", server.base])
            #expect(last.status == 0, "\(last.stdout)\(last.stderr)")
            let stored = try Self.events(server.db)
            let sent = try Self.events(device)
            #expect(stored.count == 4_000 && Set(stored) == Set(sent), "every event once")
            for stream in 0..<40 {
                let versions = stored.filter { $0.hasPrefix("phone-\(stream) ") }.map { $0.split(separator: " ")[1] }
                #expect(versions == (1...100).map { Substring(String($0)) }, "phone-\(stream) in version order")
            }
            #expect(try FlowLogProcess.run(["verify", "--db", server.db]).status == 0)
            #expect(try FlowLogProcess.run(["verify", "--db", device]).status == 0)
        }

        @Test func aStreamForgottenOnTheServerIsRefusedAndForgottenHereOnRequest() throws {
            let folder = TemporaryDirectory()
            let device = folder.child("device")
            try Self.deviceLog(device, streams: 3, commands: 4)
            let server = try ServedLog(arguments: ["--key-file", try Self.keyFile(in: folder)])
            #expect(try FlowLogProcess.run(["push", "--db", device, "--to", server.base]).status == 0)
            #expect(try server.request("DELETE", "/streams/phone-1").status == 200)
            _ = try FlowLogProcess.run(["send", "--db", device], stdin: #"{"stream":"phone-1","type":"cart.checkout"}"# + "\n")
            let refused = try FlowLogProcess.run(["push", "--db", device, "--to", server.base])
            #expect(
                refused.status == 1 && refused.stdout.contains("refused phone-1 (gone)") && refused.stdout.contains("--forget-gone"),
                "\(refused.stdout)")
            #expect(try server.get("/streams/phone-1").status == 404, "nothing of it came back")
            let forgetting = try FlowLogProcess.run(["push", "--db", device, "--to", server.base, "--forget-gone"])
            #expect(forgetting.status == 1 && forgetting.stdout.contains("forgotten here too"), "\(forgetting.stdout)")
            #expect(try FlowLogProcess.run(["state", "--db", device, "--stream", "phone-1"]).status == 66)
            #expect(try FlowLogProcess.run(["state", "--db", device, "--stream", "phone-2"]).status == 0)
        }

        @Test func aPulledSessionReplaysOfflineAndADisagreeingOneIsRefused() throws {
            let folder = TemporaryDirectory()
            let device = folder.child("device")
            try Self.deviceLog(device, streams: 2, commands: 6)
            let server = try ServedLog(arguments: ["--key-file", try Self.keyFile(in: folder)])
            #expect(try FlowLogProcess.run(["push", "--db", device, "--to", server.base]).status == 0)
            let local = folder.child("local")
            let pulled = try FlowLogProcess.run(["pull", "--db", local, "--from", server.base, "--stream", "phone-1"])
            #expect(pulled.status == 0 && pulled.stdout.contains("6 new events"), "\(pulled.stdout)\(pulled.stderr)")
            let deviceEvents = try Self.events(device)
            #expect(try Self.events(local) == deviceEvents.filter { $0.hasPrefix("phone-1 ") })
            let again = try FlowLogProcess.run(["pull", "--db", local, "--from", server.base, "--stream", "phone-1"])
            #expect(again.status == 0 && again.stdout.contains("0 new events"), "\(again.stdout)")
            #expect(try FlowLogProcess.run(["replay", "--db", local, "--stream", "phone-1", "--summary"]).status == 0)
            // A log whose phone-1 holds other events: refused, never merged.
            let other = folder.child("other")
            try Self.deviceLog(other, streams: 2, commands: 1)
            let refused = try FlowLogProcess.run(["pull", "--db", other, "--from", server.base, "--stream", "phone-1"])
            #expect(refused.status == 65 && refused.stderr.contains("not the server's"), "\(refused.stderr)")
            #expect(try Self.events(other).count == 2, "nothing was appended")
        }

        @Test func aConversationIsPulledWholeByItsCorrelationId() throws {
            let folder = TemporaryDirectory()
            let device = folder.child("device")
            let lines = [
                #"{"stream":"phone-a","type":"cart.addProduct","productId":"p1","name":"Mug","unitPrice":350,"quantity":1}"#,
                #"{"stream":"phone-a","type":"cart.addProduct","productId":"p2","name":"Cap","unitPrice":900,"quantity":1,"correlationId":"visit-9"}"#,
                #"{"stream":"phone-b","type":"cart.addProduct","productId":"p3","name":"Pen","unitPrice":100,"quantity":1,"correlationId":"visit-9"}"#,
                #"{"stream":"phone-c","type":"cart.addProduct","productId":"p4","name":"Tee","unitPrice":1999,"quantity":1,"correlationId":"visit-1"}"#,
            ]
            #expect(try FlowLogProcess.run(["send", "--db", device], stdin: lines.joined(separator: "\n") + "\n").status == 0)
            let server = try ServedLog(arguments: ["--key-file", try Self.keyFile(in: folder)])
            #expect(try FlowLogProcess.run(["push", "--db", device, "--to", server.base]).status == 0)
            let local = folder.child("local")
            let pulled = try FlowLogProcess.run(["pull", "--db", local, "--from", server.base, "--correlation-id", "visit-9"])
            #expect(pulled.status == 0, "\(pulled.stdout)\(pulled.stderr)")
            let deviceEvents = try Self.events(device)
            #expect(try Self.events(local) == deviceEvents.filter { !$0.hasPrefix("phone-c ") }, "phone-a whole, phone-b, not phone-c")
            let none = try FlowLogProcess.run(["pull", "--db", local, "--from", server.base, "--correlation-id", "visit-404"])
            #expect(none.status == 66 && none.stderr.contains("visit-404"), "\(none.stderr)")
        }

        @Test func badInputIsAClearExitThatChangesNothing() throws {
            let folder = TemporaryDirectory()
            let device = folder.child("device")
            try Self.deviceLog(device, streams: 1, commands: 2)
            let server = try ServedLog(arguments: ["--key-file", try Self.keyFile(in: folder), "--token-file", try writeTokenFile(in: folder)])
            let noScheme = try FlowLogProcess.run(["push", "--db", device, "--to", "127.0.0.1:8080"])
            #expect(noScheme.status == 64 && noScheme.stderr.contains("is not a server address"), "\(noScheme.stderr)")
            let noToken = try FlowLogProcess.run(["push", "--db", device, "--to", server.base])
            #expect(noToken.status == 77 && noToken.stderr.contains("refused the token (401)"), "\(noToken.stderr)")
            let reader = try FlowLogProcess.run(
                ["push", "--db", device, "--to", server.base], environment: ["FLOWLOG_TOKEN": "reader-token-0123456789abcdef"])
            #expect(reader.status == 77 && reader.stderr.contains("ingest scope"), "\(reader.stderr)")
            let ingest = try FlowLogProcess.run(
                ["push", "--db", device, "--to", server.base], environment: ["FLOWLOG_TOKEN": "ingest-token-0123456789abcdef"])
            #expect(ingest.status == 0, "\(ingest.stderr)")
            let notFlowLog = try FlowLogProcess.run(
                ["push", "--db", device, "--to", server.base + "/inspector"], environment: ["FLOWLOG_TOKEN": "ingest-token-0123456789abcdef"])
            #expect(notFlowLog.status == 65 && notFlowLog.stderr.contains("not a FlowLog server"), "\(notFlowLog.stderr)")
            let down = try FlowLogProcess.run(["push", "--db", device, "--to", "http://127.0.0.1:9", "--retry-for", "1"])
            #expect(down.status == 74 && down.stderr.contains("got no answer"), "\(down.stderr)")
            let noKey = try ServedLog()
            let refused = try FlowLogProcess.run(["push", "--db", device, "--to", noKey.base])
            #expect(refused.status == 65 && refused.stderr.contains("--key-file"), "\(refused.stderr)")
            #expect(try noKey.get("/health").json["headPosition"] == .integer(0))
        }
    }
#endif
