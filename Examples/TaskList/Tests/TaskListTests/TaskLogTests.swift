import Deciding
import FlowLog
import FlowLogBasics
import FlowLogHistory
import FlowLogLMDB
import FlowLogMemory
import FlowLogStore
import Foundation
import LogBinding
import TaskList
import Testing

#if Network
    import FlowLogPostgres
    import PostgresTesting
#endif

/// FlowLog's core, compiled for the list: the same pipeline, backends and history `flowlog` runs,
/// deciding, storing, folding and checking a to-do list's commands.
@Suite("The core on a to-do list's log")
struct TaskLogTests {
    /// A list's commands: two tasks added, one renamed and completed, then two refusals.
    static let commands: [TaskCommand] = [
        .add(.init(taskId: "t1", title: "Buy milk")),
        .add(.init(taskId: "t2", title: "Water the plants")),
        .rename(.init(taskId: "t1", title: "Buy oat milk")),
        .complete(.init(taskId: "t1")),
        .complete(.init(taskId: "t1")),
        .reopen(.init(taskId: "t2")),
    ]

    /// Sends the commands into `log`, one at a time as a person would, and returns their answers.
    static func send(into log: any EventLog) throws -> [CommandOutcome] {
        let processor = CommandProcessor(log: log)
        return try commands.map { try processor.handle(CommandEnvelope(stream: "list-1", command: $0)) }
    }

    static func scratchFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tasklog-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    static func refusals(_ outcomes: [CommandOutcome]) -> [RejectionCode?] {
        outcomes.map { if case .rejected(_, let rejection) = $0 { rejection.code } else { nil } }
    }

    /// The backends a list's log runs on, each a fresh log (PostgreSQL: a fresh schema of a
    /// throwaway server), opened in process or named for `tasklog --db`.
    enum Backend: String, CaseIterable {
        case lmdb
        #if Network
            case postgres
        #endif

        /// A fresh, empty log's `--db`: `name` in `folder`, or a fresh schema.
        func freshLog(in folder: String, named name: String) -> String {
            switch self {
            case .lmdb: folder + "/\(name).lmdb"
            #if Network
                case .postgres: PostgresServer.shared.url()
            #endif
            }
        }

        /// A fresh log, opened, with what removes it.
        func open() throws -> (log: any EventLog & IntegrityChecking & FingerprintedLog, remove: () -> Void) {
            switch self {
            case .lmdb:
                let folder = try TaskLogTests.scratchFolder()
                return (try LMDBEventLog(path: freshLog(in: folder, named: "list")), { try? FileManager.default.removeItem(atPath: folder) })
            #if Network
                case .postgres:
                    return (try PostgresEventLog.open(url: freshLog(in: "", named: "list"), access: .readWriteCreating), {})
            #endif
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func aListIsDecidedStoredAndFolded(on backend: Backend) throws {
        let (log, remove) = try backend.open()
        defer { remove() }
        let outcomes = try Self.send(into: log)
        #expect(Self.refusals(outcomes) == [nil, nil, nil, nil, .taskAlreadyCompleted, .taskNotCompleted])

        let (state, version) = try log.state(ofStream: "list-1")
        #expect(version == 4)
        #expect(state.tasks.map(\.title) == ["Buy oat milk", "Water the plants"])
        #expect(state.openCount == 1 && state.task("t1")?.isCompleted == true)
        #expect(try log.events(inStream: "list-1").map(\.event.typeName) == ["task.added", "task.added", "task.renamed", "task.completed"])

        // The state at a position, its JSON face, the log's own checks and today's reducers against
        // the fingerprints recorded with each event.
        #expect(try log.state(ofStream: "list-1", throughPosition: 2).state.tasks.count == 2)
        #expect(try log.state(ofStream: "list-1", throughPosition: 2).state.openCount == 2)
        let json = FlowJSON.state(state, stream: "list-1", version: version)
        #expect(json.contains(#""title":"Buy oat milk""#) && json.contains(#""openTasks":1"#))
        #expect(try log.checkIntegrity().isIntact)
        let verified = try ReplayVerifier.verifyFingerprints(of: log)
        #expect(verified.events == 4 && verified.disagreements.isEmpty)
    }

    @Test func theListsExportReadsBackIntoAnotherBackend() throws {
        let memory = InMemoryEventLog()
        _ = try Self.send(into: memory)
        let output = BufferOutput()
        #expect(try EventExport(format: .ndjson).run(from: memory, to: output) == 4)
        #expect(output.text.contains(#""type":"task.renamed""#))

        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let copy = try LMDBEventLog(path: folder + "/copy.lmdb")
        #expect(try LogCopy.copy(from: memory, to: copy) == 4)
        #expect(try copy.state(ofStream: "list-1").state == (try memory.state(ofStream: "list-1").state))
        #expect(try copy.checkIntegrity().isIntact)
    }

    /// A state's bytes come from disk, so any bytes read back either make a list or are refused.
    @Test func aListsBytesRoundTripAndDamageIsRefused() {
        var list = TaskList()
        for event: TaskEvent in [.added(.init(taskId: "a", title: "One")), .added(.init(taskId: "b", title: "Two")), .completed(.init(taskId: "a"))] {
            TaskListDecider.evolve(&list, event)
        }
        var writer = BinaryWriter()
        TaskListDecider.encode(list, withoutKeptRows: false, into: &writer)
        let bytes = writer.bytes
        #expect(bytes.withUnsafeBytes { TaskListDecider.decodeState($0) } == list)
        for cut in 0..<bytes.count {
            #expect(bytes[..<cut].withUnsafeBytes { TaskListDecider.decodeState(UnsafeRawBufferPointer($0)) } == nil)
        }
        // Bytes that are not a list, made from one by flipping and cutting, never trap and never
        // make a list that breaks the list's own invariants.
        var seed: UInt64 = 0x5EED
        func next() -> UInt64 {
            seed &+= 0x9E37_79B9_7F4A_7C15
            var mixed = seed
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
        for _ in 0..<20_000 {
            var damaged = bytes
            for _ in 0...(next() % 4) { damaged[Int(next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: next()) }
            damaged.removeLast(Int(next() % 3))
            if let read = damaged.withUnsafeBytes({ TaskListDecider.decodeState($0) }) {
                #expect(TaskListDecider.invariants.allSatisfy { $0.violation(in: read) == nil })
            }
        }
        var hugeCount = bytes
        hugeCount.replaceSubrange(1..<9, with: withUnsafeBytes(of: UInt64.max.littleEndian, Array.init))
        #expect(hugeCount.withUnsafeBytes { TaskListDecider.decodeState($0) } == nil)
    }
}
