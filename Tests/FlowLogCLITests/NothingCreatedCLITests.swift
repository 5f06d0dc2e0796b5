import FlowDomain
import FlowLog
import FlowLogLMDB
import FlowLogStore
import FlowLogTesting
import Foundation
import Testing

@testable import FlowLogCLI

/// A command that appends nothing creates nothing: a `send` whose lines are all rejected or
/// malformed, or a typed command that is rejected, leaves no log folder behind.
@Suite("commands that append nothing create nothing")
struct NothingCreatedCLITests {
    @Test func aRejectedOrMalformedOnlySendCreatesNoLog() throws {
        let folder = TemporaryDirectory()
        let inputs = [
            #"{"type":"cart.checkout"}"# + "\n",
            "not json\n" + #"{"type":"cart.teleport"}"# + "\n",
            #"{"type":"cart.addProduct","productId":"p1","unitPrice":-5,"quantity":1}"# + "\n" + #"{"type":"onboarding.next","stream":"s"}"# + "\n",
        ]
        for input in inputs {
            let result = try FlowLogProcess.run(["send", "--db", folder.child("log")], stdin: input)
            #expect(result.status == 1, "\(input): \(result.stderr)")
            #expect(result.stdout.contains(#""ok":false"#))
            #expect(!FileManager.default.fileExists(atPath: folder.child("log")), "\(input)")
        }
        let rejected = try FlowLogProcess.run(["cart", "checkout", "--db", folder.child("log")])
        #expect(rejected.status == 1)
        #expect(rejected.stderr.contains("emptyCart"))
        #expect(!FileManager.default.fileExists(atPath: folder.child("log")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)

        // The first accepted line creates it, and the answers around it are as before.
        let mixed = try FlowLogProcess.run(
            ["send", "--db", folder.child("log")],
            stdin: #"{"type":"cart.checkout"}"# + "\n" + #"{"type":"app.launched","hasOnboarded":false}"# + "\n")
        #expect(mixed.status == 1)
        #expect(mixed.stdoutLines.last == #"{"ok":true,"stream":"default","positions":[1],"version":1}"#)
        #expect(try LMDBEventLog(path: folder.child("log"), access: .readOnly).lastPosition() == 1)
    }

    /// The log `send` and the typed commands write through tells its snapshot interval, as the log
    /// it opens would: a processor that cannot learn it hands every request's state to the log (in
    /// case a snapshot falls there) and so holds a copy of the stream's state per command.
    @Test func theLogCreatedOnFirstAppendTellsItsSnapshotInterval() throws {
        let folder = TemporaryDirectory()
        let options = try LogOptions.parse(["--db", folder.child("log")])
        // Given no log yet: the interval a new log gets, and nothing created by asking
        let missing = try LogCreatedOnFirstAppend(options)
        #expect(missing.capabilities.snapshots === missing)
        #expect(missing.capabilities.following == nil && missing.capabilities.backup == nil, "nothing to follow or back up yet")
        #expect(try missing.snapshotInterval() == AppendRules.defaultSnapshotInterval)
        #expect(try missing.snapshotCount() == 0)
        #expect(!FileManager.default.fileExists(atPath: folder.child("log")))
        // Given a log whose interval was set to 50: that one
        try LMDBEventLog(path: folder.child("log")).setSnapshotInterval(50)
        let opened = try LogCreatedOnFirstAppend(options)
        #expect(try opened.snapshotInterval() == 50)
        // and the opened log's following and backup, passed on
        #expect(opened.capabilities.following is LMDBEventLog)
        #expect(opened.capabilities.backup is LMDBEventLog)
        // and its writes handed to a background appender: `send` decides a batch while the one
        // before is written, and answers each only once its write is committed
        #expect(opened.capabilities.deferredCommits?.defersCommit == true)
        #expect(opened.capabilities.predictedAppends == nil, "the wrapper uses the opened log's itself")
    }

    /// `send`'s look-ahead works from the first line into a log not created yet: every stream is
    /// empty until the first write creates it, then each is read from the log it created.
    @Test func theLogCreatedOnFirstAppendReadsAheadBeforeAndAfterItExists() throws {
        let folder = TemporaryDirectory()
        let log = try LogCreatedOnFirstAppend(try LogOptions.parse(["--db", folder.child("log")]))
        let ahead = try #require(log.capabilities.prefetching)
        // Given no log: each stream is empty, and asking creates nothing
        let before = try ahead.committedStates(ofStreams: ["a", "b"], slimmingPast: nil)
        #expect(before.map(\.version) == [0, 0] && before.allSatisfy { $0.state == .initial })
        #expect(!FileManager.default.fileExists(atPath: folder.child("log")))
        // When the first write creates it
        _ = try CommandProcessor(log: log).handle(CommandEnvelope(stream: "a", command: .app(.launched(.init(hasOnboarded: false)))))
        // Then the states come from the log it created
        let after = try ahead.committedStates(ofStreams: ["a", "b"], slimmingPast: nil)
        #expect(after.map(\.version) == [1, 0])
        #expect(log.capabilities.prefetching is LMDBEventLog)
    }

    @Test func aBadLogPathIsStillReportedBeforeAnyLineIsRead() throws {
        let folder = TemporaryDirectory()
        let missingParent = try FlowLogProcess.run(["send", "--db", folder.child("a/b/log")], stdin: #"{"type":"cart.checkout"}"# + "\n")
        #expect(missingParent.status == 73, "\(missingParent.stderr)")
        #expect(missingParent.stdout.isEmpty)
        try "x".write(toFile: folder.child("file"), atomically: true, encoding: .utf8)
        let notALog = try FlowLogProcess.run(["cart", "checkout", "--db", folder.child("file")])
        #expect(notALog.status == 65, "\(notALog.stderr)")
    }
}
