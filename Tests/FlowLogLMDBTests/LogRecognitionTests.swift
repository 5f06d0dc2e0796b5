import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Foundation
import LMDB
import Testing

@testable import FlowLogLMDB

/// Only an empty environment becomes a log; FlowLog never adds its databases to anything else.
@Suite("Recognising a log")
struct LogRecognitionTests {
    private func openingError(_ path: String, _ access: LMDBEventLog.Access) -> FlowLogError? {
        do {
            _ = try LMDBEventLog(path: path, access: access)
            return nil
        } catch {
            return error
        }
    }

    private func environment(_ path: String) throws -> Environment {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return try Environment(path: path)
    }

    @Test func anotherProgramsEnvironmentIsRefusedInEveryModeAndKeepsItsBytes() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("theirs")
        let theirs = try environment(path)
        try theirs.write { txn in
            try txn.put(try txn.openDatabase(named: "users", create: true), key: Array("alice".utf8), value: Array("admin".utf8))
        }
        let before = FileManager.default.contents(atPath: path + "/data.mdb")
        let refusal = FlowLogError.notALog(
            path: path, reason: "it is another program's LMDB environment (its main database holds users), and FlowLog adds nothing to it")
        for access in [LMDBEventLog.Access.readWriteCreating, .readWrite, .readOnly] {
            #expect(openingError(path, access) == refusal, "\(access)")
        }
        #expect(FileManager.default.contents(atPath: path + "/data.mdb") == before)
    }

    @Test func aCreationCutShortBeforeItsSchemaIsFinished() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log")
        let cut = try environment(path)
        _ = try cut.openDatabases(named: ["meta", "events", "streams", "streamIndex", "commands", "eventIds", "snapshots", "orders"], create: true)
        #expect(try LogRecognition.inspect(cut) == .unfinishedLog)
        let log = try LMDBEventLog(path: path)
        _ = try log.append([
            AppendRequest(
                stream: "s", expectedVersion: 0, commandId: nil,
                events: [
                    NewEvent(
                        eventId: EventID(high: 1, low: 1), timestamp: Timestamp(microseconds: 0), actor: .user, event: .navigation(.modalPresented))
                ])
        ])
        #expect(try LogRecognition.inspect(log.environment) == .log)
    }

    @Test func aLogThatLostItsSchemaIsDamagedAndRefused() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log")
        do {
            let log = try LMDBEventLog(path: path)
            _ = try log.append([
                AppendRequest(
                    stream: "s", expectedVersion: 0, commandId: nil,
                    events: [
                        NewEvent(
                            eventId: EventID(high: 1, low: 1), timestamp: Timestamp(microseconds: 0), actor: .user,
                            event: .navigation(.modalPresented))
                    ])
            ])
            try log.environment.write { txn in _ = try txn.delete(log.meta, key: Array("schema".utf8)) }
        }
        for access in [LMDBEventLog.Access.readWriteCreating, .readOnly] {
            guard case .notALog(_, let reason)? = openingError(path, access) else {
                Issue.record("\(access) opened")
                continue
            }
            #expect(reason.contains("damaged"))
        }
    }
}
