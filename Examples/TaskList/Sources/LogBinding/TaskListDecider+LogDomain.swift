public import FlowLogBasics
public import FlowLogDomain
public import TaskList

/// The list's states as bytes (snapshots and heads) and JSON (`state`, `replay`, the inspector),
/// and their fingerprints. A list keeps no rows beside its events, so every layout is the whole
/// state: a format byte, the number of tasks, then each task's id, title and whether it is done.
extension TaskListDecider: LogDomain {
    /// The first layout. A layout once written is read for ever: a new one takes another number.
    static let formatVersion: UInt8 = 1
    /// More tasks than any list the rules let grow (500 open, and the done ones a person keeps)
    /// read as damage, so that a damaged count never asks for a huge allocation.
    static let mostTasksStored = 1_000_000

    public static func encode(_ state: TaskList, withoutKeptRows: Bool, into writer: inout BinaryWriter) {
        writer.write(formatVersion)
        writer.write(int: state.tasks.count)
        for task in state.tasks {
            writer.writeString(task.id)
            writer.writeString(task.title)
            writer.write(task.isCompleted ? 1 as UInt8 : 0)
        }
    }

    public static func decodeState(_ bytes: UnsafeRawBufferPointer) -> TaskList? {
        var reader = BinaryReader(bytes)
        guard let state = try? read(&reader), reader.remaining == 0 else { return nil }
        return state
    }

    private static func read(_ reader: inout BinaryReader) throws(BinaryReader.OutOfBounds) -> TaskList? {
        guard try reader.readByte() == formatVersion else { return nil }
        let count = try reader.readInt()
        guard (0...mostTasksStored).contains(count) else { return nil }
        var tasks: [TaskList.Task] = []
        for _ in 0..<count {
            let id = try reader.readString()
            let title = try reader.readString()
            let done = try reader.readByte()
            guard done <= 1 else { return nil }
            tasks.append(TaskList.Task(id: id, title: title, isCompleted: done == 1))
        }
        return TaskList(tasks: tasks)
    }

    public static func decodeStateWithoutKeptRows(_ bytes: UnsafeRawBufferPointer) -> (state: TaskList, keptRowCount: Int)? {
        decodeState(bytes).map { ($0, 0) }
    }

    public static func encode(keepingLatestKeptRow state: TaskList, into writer: inout BinaryWriter) {
        encode(state, withoutKeptRows: false, into: &writer)
    }

    public static func decodeStateKeepingLatestKeptRow(_ bytes: UnsafeRawBufferPointer) -> TaskList? { decodeState(bytes) }

    public static func encode(keptRow: NoKeptRow, into writer: inout BinaryWriter) {}

    public static func readKeptRow(_ reader: inout BinaryReader, allowingEmptyKey: Bool) throws(BinaryReader.OutOfBounds) -> NoKeptRow? { nil }

    public static func readKeptRowKey(_ reader: inout BinaryReader) throws(BinaryReader.OutOfBounds) -> UnsafeRawBufferPointer? { nil }

    public static func fingerprint(_ state: TaskList, lastKeptRow: NoKeptRow?, scratch writer: inout BinaryWriter) -> UInt64 {
        fingerprint(state, scratch: &writer)
    }

    /// The hash of the whole list: a list is short, so every task counts.
    public static func fingerprint(_ state: TaskList, scratch writer: inout BinaryWriter) -> UInt64 {
        writer.reset()
        encode(state, withoutKeptRows: false, into: &writer)
        return writer.withUnsafeBytes { XXHash64.hash($0) }
    }

    public static func writeStateMembers(_ state: TaskList, into json: inout JSONWriter, drain: ((inout JSONWriter) -> Void)?) {
        json.key("tasks")
        json.beginArray()
        for task in state.tasks {
            json.beginObject()
            json.key("taskId")
            json.string(task.id)
            json.key("title")
            json.string(task.title)
            json.key("completed")
            json.bool(task.isCompleted)
            json.endObject()
            drain?(&json)
        }
        json.endArray()
        json.key("openTasks")
        json.int(state.openCount)
    }

    public static func decisionContext(defaultCurrency: String) {}

    public static func estimatedCost(of state: TaskList) -> Int {
        64 + state.tasks.reduce(0) { $0 + 48 + $1.id.utf8.count + $1.title.utf8.count }
    }

    public static func keepOnlyLatestKeptRow(_ state: inout TaskList) {}

    public static func slimForCache(_ state: inout TaskList) {}
}
