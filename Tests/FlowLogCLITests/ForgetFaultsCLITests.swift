import FlowLogBasics
import FlowLogTesting
import Foundation
import Testing

/// `forget` under faults and load: SIGKILL leaves the log as it was before or after, never half;
/// writers of other streams lose no acknowledged event; a writer of the forgotten stream itself is
/// serialised with the forget.
@Suite("Forgetting a stream under faults and load", .serialized)
struct ForgetFaultsCLITests {
    /// A log with a long stream "big" (`count` events) and a short one.
    static func logWithABigStream(_ folder: TemporaryDirectory, count: Int) throws -> String {
        let db = folder.child("log")
        let lines =
            (0..<count).map {
                #"{"type":"cart.addProduct","stream":"big","productId":"p\#($0 % 50)","name":"Thing of big","unitPrice":100,"quantity":1}"#
            }
            + [#"{"type":"cart.addProduct","stream":"small","productId":"p1","unitPrice":100,"quantity":1}"#]
        _ = try ForgetCLITests.run(["send", "--db", db], stdin: lines.joined(separator: "\n") + "\n")
        return db
    }

    static func forgottenCount(_ db: String) throws -> Int? {
        let verify = try ForgetCLITests.run(["verify", "--format", "json", "--db", db])
        let report = try JSONParser.parse(verify.stdout)
        #expect(report["intact"] == .bool(true), "\(verify.stdout)")
        guard case .integer(let forgotten)? = report["forgotten"] else { return nil }
        return forgotten
    }

    @Test func aKilledForgetLeavesTheStreamWholeOrWhollyForgotten() throws {
        let template = TemporaryDirectory()
        let source = try Self.logWithABigStream(template, count: 20_000)
        var outcomes = Set<Bool>()
        for delay in stride(from: 0, through: 280_000, by: 40_000) {
            let scratch = TemporaryDirectory()
            let db = scratch.child("log")
            try FileManager.default.copyItem(atPath: source, toPath: db)
            let forget = try FlowLogProcess.start(["forget", "--stream", "big", "--db", db])
            usleep(useconds_t(delay))
            forget.kill()
            let forgotten = try Self.forgottenCount(db)
            #expect(forgotten == 0 || forgotten == 20_000, "after \(delay) µs: \(String(describing: forgotten)) forgotten")
            let state = try FlowLogProcess.run(["state", "--stream", "big", "--format", "json", "--db", db])
            if forgotten == 0 {
                #expect(state.status == 0 && state.stdout.contains(#""version":20000"#))
            } else {
                #expect(state.status == 66)
            }
            outcomes.insert(forgotten == 0)
            // Whatever the kill left, forget (again, or for the first time) ends as if it had never been killed.
            let again = try FlowLogProcess.run(["forget", "--stream", "big", "--db", db])
            #expect(again.status == (forgotten == 0 ? 0 : 66), "\(again.stderr)")
            #expect(try Self.forgottenCount(db) == 20_000)
            _ = try ForgetCLITests.run(["state", "--stream", "small", "--db", db])
        }
        #expect(outcomes.contains(true), "no kill landed before the commit")
    }

    /// Four writers append to their own streams while "big" is forgotten: every event they were told
    /// is on disk is in the log, at the position they were told.
    @Test func writersOfOtherStreamsLoseNoAcknowledgedEvent() throws {
        let scratch = TemporaryDirectory()
        let db = try Self.logWithABigStream(scratch, count: 20_000)
        let writers = try (0..<4).map { writer in
            let started = try FlowLogProcess.start(["send", "--db", db], piped: true)
            started.feed(
                (0..<3_000).map {
                    #"{"type":"cart.addProduct","stream":"w\#(writer)-\#($0 % 5)","productId":"p\#($0 % 40)","unitPrice":100,"quantity":1}"#
                })
            return started
        }
        usleep(30_000)
        _ = try ForgetCLITests.run(["forget", "--stream", "big", "--db", db])
        var acknowledged: [(stream: String, position: Int)] = []
        for writer in writers {
            let answers = writer.readOutput()
            #expect(writer.process.terminationStatus == 0)
            for line in answers.split(separator: "\n") {
                let answer = try JSONParser.parse(String(line))
                guard answer["ok"] == .bool(true), case .string(let stream)? = answer["stream"], case .array(let positions)? = answer["positions"]
                else {
                    Issue.record("a line was not accepted: \(line)")
                    continue
                }
                for case .integer(let position) in positions { acknowledged.append((stream, position)) }
            }
        }
        #expect(acknowledged.count == 12_000)
        let export = try ForgetCLITests.run(["export", "--skip-forgotten", "--db", db]).stdoutLines
        var streamAt: [Int: String] = [:]
        for line in export {
            let event = try JSONParser.parse(line)
            if case .integer(let position)? = event["position"], case .string(let stream)? = event["stream"] { streamAt[position] = stream }
        }
        for (stream, position) in acknowledged { #expect(streamAt[position] == stream, "position \(position)") }
        #expect(try Self.forgottenCount(db) == 20_000)
    }

    /// A writer of the stream being forgotten: what it appended before the forget is forgotten with
    /// the rest; what it appends after starts the stream anew at version 1. Nothing is half.
    @Test func aWriterOfTheForgottenStreamIsSerialisedWithTheForget() throws {
        let scratch = TemporaryDirectory()
        let db = try Self.logWithABigStream(scratch, count: 2_000)
        let writer = try FlowLogProcess.start(["send", "--db", db], piped: true)
        writer.feed((0..<4_000).map { #"{"type":"cart.addProduct","stream":"big","productId":"q\#($0 % 50)","unitPrice":100,"quantity":1}"# })
        usleep(20_000)
        let forget = try ForgetCLITests.run(["forget", "--stream", "big", "--format", "json", "--db", db])
        let answers = writer.readOutput().split(separator: "\n")
        #expect(answers.count == 4_000 && answers.allSatisfy { $0.contains(#""ok":true"#) })
        guard case .integer(let forgottenEvents)? = try JSONParser.parse(forget.stdout)["events"] else {
            Issue.record("no count: \(forget.stdout)")
            return
        }
        // Every event of big is either forgotten or in the stream as it starts again after the forget.
        let state = try FlowLogProcess.run(["state", "--stream", "big", "--format", "json", "--db", db])
        let remaining =
            state.status == 66 ? 0 : (try JSONParser.parse(state.stdout)["version"]).flatMap { if case .integer(let n) = $0 { n } else { nil } } ?? -1
        #expect(forgottenEvents >= 2_000 && forgottenEvents + remaining == 6_000, "\(forgottenEvents) forgotten, \(remaining) after")
        #expect(try Self.forgottenCount(db) == forgottenEvents)
    }
}
