import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Foundation
import LMDB
import Testing

@testable import FlowLogLMDB

private func randomID() -> EventID { EventID(high: .random(in: 0...UInt64.max), low: .random(in: 0...UInt64.max)) }

private let modal = AppEvent.navigation(.modalPresented)
private let everyEventType = RandomEvents.everyKind()

private func newEvents(_ events: AppEvent...) -> [NewEvent] {
    events.map { NewEvent(eventId: randomID(), timestamp: Timestamp(microseconds: 1), actor: .user, event: $0) }
}

@Suite("LMDB event log")
struct LMDBEventLogTests {
    @Test func eventsSurviveReopeningAndEveryTypeRoundTrips() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log.lmdb")
        let new = everyEventType.map { NewEvent(eventId: randomID(), timestamp: Timestamp(microseconds: 7), actor: .user, event: $0) }
        do {
            let log = try LMDBEventLog(path: path)
            _ = try log.append([AppendRequest(stream: "s", expectedVersion: 0, commandId: "c", events: new)])
        }
        let reopened = try LMDBEventLog(path: path, access: .readOnly)
        #expect(try reopened.events().map(\.event) == everyEventType)
        #expect(try reopened.receipt(stream: "s", commandId: "c")?.eventCount == everyEventType.count)
        #expect(try reopened.streams().map(\.stream) == ["s"])
    }

    /// The error opening a log throws, or `nil` when it opens.
    private func openingError(_ path: String, _ access: LMDBEventLog.Access = .readWriteCreating) -> FlowLogError? {
        do {
            _ = try LMDBEventLog(path: path, access: access)
            return nil
        } catch {
            return error
        }
    }

    @Test func opensNothingByAccident() throws {
        let folder = TemporaryDirectory()
        #expect(openingError(folder.child("missing"), .readOnly) == .notFound(path: folder.child("missing")))
        #expect(openingError(folder.child("missing"), .readWrite) == .notFound(path: folder.child("missing")))
        #expect(openingError(folder.child("no/log")) == .missingParent(path: folder.child("no/log"), parent: folder.child("no")))
        try "hello".write(toFile: folder.child("file"), atomically: true, encoding: .utf8)
        #expect(
            openingError(folder.child("file"))
                == .notALog(path: folder.child("file"), reason: "it is a file, and a log is a folder holding data.mdb and lock.mdb"))
        try FileManager.default.createDirectory(atPath: folder.child("other"), withIntermediateDirectories: false)
        try "x".write(toFile: folder.child("other/notes.txt"), atomically: true, encoding: .utf8)
        #expect(
            openingError(folder.child("other"))
                == .notALog(path: folder.child("other"), reason: "the folder holds other files (notes.txt) but no data.mdb"))
        #expect(!FileManager.default.fileExists(atPath: folder.child("other/data.mdb")))
        #expect(!FileManager.default.fileExists(atPath: folder.child("missing")))
    }

    @Test func refusesAnLMDBFileThatIsNotALog() throws {
        let folder = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: folder.child("junk"), withIntermediateDirectories: false)
        try String(repeating: "not lmdb ", count: 2000).write(toFile: folder.child("junk/data.mdb"), atomically: true, encoding: .utf8)
        #expect(
            openingError(folder.child("junk"))
                == .notALog(path: folder.child("junk"), reason: "its data.mdb is not an LMDB database of a compatible format"))
    }

    /// A data file shorter than its last commit (a copy cut short) is refused when opened: LMDB
    /// would read the missing pages through the map, and the process would die of `SIGBUS`.
    @Test func refusesALogWhoseFileIsCutShort() throws {
        let folder = TemporaryDirectory()
        let whole = folder.child("whole")
        do {
            let log = try LMDBEventLog(path: whole)
            for stream in 0..<40 {
                _ = try log.append([AppendRequest(stream: "s\(stream)", expectedVersion: 0, commandId: "c", events: newEvents(modal, modal))])
            }
        }
        let bytes = try #require(FileManager.default.contents(atPath: whole + "/data.mdb"))
        let cut = folder.child("cut")
        try FileManager.default.createDirectory(atPath: cut, withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: cut + "/data.mdb", contents: bytes.prefix(bytes.count / 2)))
        for access in [LMDBEventLog.Access.readOnly, .readWrite] {
            guard case .notALog(let path, let reason)? = openingError(cut, access) else {
                Issue.record("\(access): \(String(describing: openingError(cut, access)))")
                continue
            }
            #expect(path == cut)
            #expect(reason.contains("data.mdb holds \(bytes.count / 2) bytes, but its last commit uses"), "\(reason)")
            #expect(reason.contains("cut short"), "\(reason)")
        }
        #expect(FileManager.default.contents(atPath: cut + "/data.mdb") == bytes.prefix(bytes.count / 2), "nothing was written")
        #expect(try LMDBEventLog(path: whole, access: .readOnly).lastPosition() == 80)
    }

    @Test func refusesALogOfANewerSchemaNamingBothVersions() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log.lmdb")
        do {
            let log = try LMDBEventLog(path: path)
            try log.environment.write { txn in
                try txn.put(log.meta, key: Array("schema".utf8), value: withUnsafeBytes(of: UInt64(9).littleEndian, Array.init))
            }
        }
        #expect(openingError(path) == .newerSchema(path: path, found: 9, supported: LMDBEventLog.logSchemaVersion))
        #expect(openingError(path, .readOnly) == .newerSchema(path: path, found: 9, supported: LMDBEventLog.logSchemaVersion))
    }

    @Test func aDamagedRecordStopsReadsWithItsPositionAndStream() throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log.lmdb"))
        for stream in ["a", "b", "c"] {
            _ = try log.append([
                AppendRequest(stream: stream, expectedVersion: nil, commandId: nil, events: newEvents(.cart(.paymentFailed(.init(reason: "why")))))
            ])
        }
        try log.environment.write { txn in
            var bytes = Array(try txn.get(log.eventsDB, key: Keys.position(2))!)
            bytes[bytes.count - 12] ^= 1
            try txn.put(log.eventsDB, key: Keys.position(2), value: bytes)
        }
        var seen: [Int] = []
        do {
            try log.forEachEvent(from: 1, through: nil) {
                seen.append($0.position)
                return true
            }
            Issue.record("the damage must be reported")
        } catch let error as FlowLogError {
            guard case .damaged(let damage) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(damage.position == 2)
            #expect(damage.stream == "b")
        }
        #expect(seen == [1])
        #expect(throws: FlowLogError.self) { try log.events(inStream: "b") }
        // Record 3 is intact: it is checked against the hash record 2 stored when it was written.
        // Walking the chain from the start (as above) is what finds record 2's damage.
        #expect(try log.events(inStream: "c").count == 1)
    }

    @Test func aMissingRecordIsReported() throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log.lmdb"))
        _ = try log.append([AppendRequest(stream: "a", expectedVersion: nil, commandId: nil, events: newEvents(modal, modal, modal))])
        try log.environment.write { txn in _ = try txn.delete(log.eventsDB, key: Keys.position(2)) }
        #expect(throws: FlowLogError.self) { try log.events() }
    }

    @Test func theMapGrowsWhenItIsFull() throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log.lmdb"), initialMapSize: 64 * 1024)
        let before = log.mapSize
        let name = String(repeating: "n", count: 200)
        for batch in 0..<20 {
            let events = (0..<100).map { _ in AppEvent.cart(.productAdded(.init(productId: "p", name: name, unitPrice: 1, quantity: 1))) }
            _ = try log.append([
                AppendRequest(
                    stream: "s\(batch)", expectedVersion: nil, commandId: nil,
                    events: events.map { NewEvent(eventId: randomID(), timestamp: Timestamp(microseconds: 0), actor: .user, event: $0) })
            ])
        }
        #expect(log.mapSize > before)
        #expect(try log.lastPosition() == 2000)
        #expect(try log.events().count == 2000)
    }

    /// A writer opens a log whose pages fill most of its map with room for half its file again,
    /// so that its first writes need not grow the map (which a predicted append may not do).
    @Test func aWriterOpensWithRoomForHalfTheFileAgain() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log.lmdb")
        let name = String(repeating: "n", count: 200)
        var fileBytes = 0
        do {
            let log = try LMDBEventLog(path: path, initialMapSize: 64 * 1024)
            // Until the pages fill more than two thirds of the map the log grew to.
            for batch in 0..<200 where fileBytes * 3 <= log.mapSize * 2 {
                let events = (0..<20).map { _ in AppEvent.cart(.productAdded(.init(productId: "p", name: name, unitPrice: 1, quantity: 1))) }
                _ = try log.append([
                    AppendRequest(
                        stream: "s\(batch)", expectedVersion: nil, commandId: nil,
                        events: events.map { NewEvent(eventId: randomID(), timestamp: Timestamp(microseconds: 0), actor: .user, event: $0) })
                ])
                fileBytes = try FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.size] as! Int
            }
            #expect(fileBytes * 3 > log.mapSize * 2)
        }
        let reopened = try LMDBEventLog(path: path, access: .readWrite, initialMapSize: 64 * 1024)
        #expect(reopened.mapSize >= fileBytes / 2 * 3)
        let reader = try LMDBEventLog(path: path, access: .readOnly, initialMapSize: 64 * 1024)
        #expect(try reader.lastPosition() == reopened.lastPosition())
    }
}
