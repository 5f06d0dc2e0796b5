import FlowDomain
import FlowLog
import FlowLogBasics
import FlowLogStore
import FlowLogSystem
import FlowLogTesting
import Foundation
import LMDB
import Synchronization
import Testing

@testable import FlowLogLMDB

/// The log lock (`LogLock`: shared by every open log, exclusive for `compact`) and the compaction
/// that swaps a compacted copy in for `data.mdb`.
@Suite("Log lock and compaction")
struct LogLockAndCompactionTests {
    /// A log of `streams` sessions of launches, closed again.
    private func makeLog(_ path: String, streams: Int = 20) throws {
        let log = try LMDBEventLog(path: path)
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: UUIDv7Generator(clock: SystemClock()))
        for stream in 0..<streams {
            for _ in 0..<5 { _ = try processor.handle(CommandEnvelope(stream: "s\(stream)", command: .app(.launched(.init(hasOnboarded: false))))) }
        }
    }

    /// Writes 4 MB into the log's `meta` database and deletes it again: pages LMDB then keeps free.
    static func addFreePages(_ path: String) throws {
        let environment = try Environment(path: path)
        let meta = try environment.write { try $0.openDatabase(named: "meta", create: false) }
        let key = Array("scratch".utf8)
        try environment.write { try $0.put(meta, key: key, value: [UInt8](repeating: 0x5A, count: 4 << 20)) }
        try environment.write { _ = try $0.delete(meta, key: key) }
    }

    private func everything(_ path: String) throws -> (events: [RecordedEvent], states: [FlowState], intact: Bool) {
        let log = try LMDBEventLog(path: path, access: .readOnly)
        var events: [RecordedEvent] = []
        try log.forEachEvent(from: 1, through: nil) {
            events.append($0)
            return true
        }
        let states = try log.streams().map { try log.state(ofStream: $0.stream, throughPosition: nil).state }
        return (events, states, try log.checkIntegrity(progress: nil).isIntact)
    }

    private func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    @Test func aLogOpenedTwiceInOneProcessHoldsTwoSharedLocks() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log")
        try makeLog(path, streams: 1)
        let writer = try LMDBEventLog(path: path)
        let reader = try LMDBEventLog(path: path, access: .readOnly)
        #expect(try writer.lastPosition() == 5)
        #expect(try reader.lastPosition() == 5)
        #expect(writer.logLock.isHeld && reader.logLock.isHeld)
        #expect(FileManager.default.fileExists(atPath: path + "/flowlog.lock"))
        #expect(throws: FlowLogError.logInUse(LogInUse(path: path, operation: "compact", pids: [getpid()]))) {
            try LogLock.exclusive(in: path, for: "compact")
        }
        #expect(throws: FlowLogError.logInUse(LogInUse(path: path, operation: "flowlog compact", pids: [getpid()]))) {
            try LMDBEventLog.compact(path: path)
        }
        withExtendedLifetime((writer, reader)) {}
    }

    @Test func theExclusiveLockIsFreeOnceEveryLogIsClosed() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log")
        try makeLog(path, streams: 1)
        do {
            let log = try LMDBEventLog(path: path, access: .readOnly)
            #expect(throws: FlowLogError.self) { try LogLock.exclusive(in: path, for: "compact") }
            withExtendedLifetime(log) {}
        }
        let lock = try LogLock.exclusive(in: path, for: "compact")
        withExtendedLifetime(lock) {}
        #expect(LogInUse(path: "x", operation: "flowlog compact", pids: []).description.contains("open in another process"))
        #expect(LogInUse(path: "x", operation: "flowlog compact", pids: [12, 34]).description.contains("open in processes 12, 34"))
    }

    /// A holder that lets go within moments (a process ending, a child just forked that has not
    /// yet run its program) is waited for; one that stays is refused once the patience runs out.
    @Test func theExclusiveLockWaitsAMomentForAHolderLettingGo() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log")
        try makeLog(path, streams: 1)
        let held = open(LogLock.path(in: path), O_RDONLY | O_CLOEXEC)
        #expect(held >= 0 && flock(held, LOCK_SH) == 0)
        let releaser = Thread {
            usleep(100_000)
            close(held)
        }
        releaser.start()
        do {
            let lock = try LogLock.exclusive(in: path, for: "compact", patience: 5)
            withExtendedLifetime(lock) {}
        }

        let staying = try LMDBEventLog(path: path, access: .readOnly)
        let started = MonotonicClock.seconds()
        #expect(throws: FlowLogError.self) { try LogLock.exclusive(in: path, for: "compact", patience: 0.2) }
        #expect(MonotonicClock.seconds() - started >= 0.2)
        withExtendedLifetime(staying) {}
    }

    /// A log opened while a compaction holds the lock waits for it, then opens the new file.
    @Test func anOpenWaitsWhileTheExclusiveLockIsHeld() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log")
        try makeLog(path, streams: 1)
        let opened = Mutex(false)
        do {
            let lock = try LogLock.exclusive(in: path, for: "compact")
            let opener = Thread {
                if let log = try? LMDBEventLog(path: path, access: .readOnly), (try? log.lastPosition()) == 5 { opened.withLock { $0 = true } }
            }
            opener.start()
            usleep(300_000)
            #expect(!opened.withLock { $0 }, "the open waits for the exclusive lock")
            withExtendedLifetime(lock) {}
        }
        for _ in 0..<200 where !opened.withLock({ $0 }) { usleep(10_000) }
        #expect(opened.withLock { $0 }, "and opens once it is released")
    }

    /// What LMDB's compaction is for: the pages LMDB freed are left out of the file, whose sizes
    /// before and after it reports. That the log answers as before, verifies and takes appends
    /// after it is the compaction contract's (`CompactionContractTests`), on every backend.
    @Test func compactionLeavesOutFreePages() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log")
        try makeLog(path)
        try Self.addFreePages(path)
        let bytes = size(path + "/data.mdb")
        let done = try LMDBEventLog.compact(path: path)
        #expect(done.bytesBefore == bytes)
        #expect(done.bytesAfter == size(path + "/data.mdb"))
        #expect(done.bytesAfter < bytes / 4, "\(done)")
        #expect(!FileManager.default.fileExists(atPath: path + "/" + LMDBEventLog.compactingName))
    }

    @Test func aCopyAKilledCompactionLeftIsHarmlessAndRemovedByTheNext() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log")
        try makeLog(path)
        try Data(repeating: 0x42, count: 100_000).write(to: URL(fileURLWithPath: path + "/" + LMDBEventLog.compactingName))
        let log = try LMDBEventLog(path: path, access: .readOnly)
        #expect(try log.lastPosition() == 100)
        #expect(try log.checkIntegrity(progress: nil).isIntact)
        _ = consume log
        _ = try LMDBEventLog.compact(path: path)
        #expect(!FileManager.default.fileExists(atPath: path + "/" + LMDBEventLog.compactingName))
        #expect(try everything(path).events.count == 100)
    }

    @Test func aFolderHoldingOnlyTheLogLockIsAsGoodAsEmpty() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("log")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: path + "/flowlog.lock", contents: nil))
        #expect(throws: FlowLogError.notFound(path: path)) { try LMDBEventLog(path: path, access: .readOnly) }
        #expect(throws: FlowLogError.notFound(path: path)) { try LMDBEventLog.compact(path: path) }
        try makeLog(path, streams: 1)
        #expect(try LMDBEventLog(path: path, access: .readOnly).lastPosition() == 5)
        // Anything else beside it still makes the folder someone else's.
        let other = folder.child("other")
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: other + "/flowlog.lock", contents: nil))
        #expect(FileManager.default.createFile(atPath: other + "/notes.txt", contents: nil))
        #expect(throws: FlowLogError.notALog(path: other, reason: "the folder holds other files (notes.txt) but no data.mdb")) {
            try LMDBEventLog(path: other)
        }
    }

    @Test func anotherProgramsEnvironmentIsLeftWithoutALockFile() throws {
        let folder = TemporaryDirectory()
        let path = folder.child("theirs")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        do {
            let environment = try Environment(path: path)
            let users = try environment.write { try $0.openDatabase(named: "users", create: true) }
            try environment.write { try $0.put(users, key: Array("alice".utf8), value: Array("admin".utf8)) }
        }
        #expect(throws: FlowLogError.self) { try LMDBEventLog(path: path) }
        #expect(throws: FlowLogError.self) { try LMDBEventLog.compact(path: path) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).sorted() == ["data.mdb", "lock.mdb"])
    }
}
