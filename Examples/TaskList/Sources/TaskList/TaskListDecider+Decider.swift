public import Deciding

/// The to-do list in the `Decider` shape that every FlowLog log is written against. A list keeps no
/// rows beside its events (`KeptRow` is `NoKeptRow`), and its read model's columns are two counts.
extension TaskListDecider: Decider {
    public typealias Failure = Rejection

    public static func keptRow(for event: TaskEvent) -> NoKeptRow? { nil }
    public static func keptRows(of state: TaskList) -> [NoKeptRow] { [] }
    public static func restoreKeptRows(_ rows: [NoKeptRow], into state: inout TaskList) {}
    public static func keptRowKeyHash(utf8 key: UnsafeRawBufferPointer) -> UInt64 { 0 }
    public static func restoreSlimKeptRows(latest: NoKeptRow, droppedKeyHashes: [UInt64], into state: inout TaskList) {}
    public static func anonymized(_ row: NoKeptRow) -> NoKeptRow { row }
    public static func needsKeptRows(_ command: TaskCommand, state: TaskList) -> Bool { false }
    public static func mayNeedKeptRows(_ command: TaskCommand) -> Bool { false }

    public static let stateColumns: [ReadModelColumn<TaskList>] = [
        ReadModelColumn("tasks", .integer) { .integer($0.tasks.count) },
        ReadModelColumn("open_tasks", .integer) { .integer($0.openCount) },
    ]
    public static let keptRowColumns: [ReadModelColumn<NoKeptRow>] = []
    public static func keptRow(fromColumns values: [ReadModelColumn<NoKeptRow>.Value]) -> NoKeptRow? { nil }

    /// What every list the rules make keeps: `bisect --invariant NAME` finds the first event that broke one.
    public static let invariants: [Invariant<TaskList>] = [
        Invariant(name: "open-tasks", summary: "at most 500 tasks are open") { list in
            list.openCount > TaskList.maximumOpenTasks ? "\(list.openCount) tasks are open" : nil
        },
        Invariant(name: "open-count", summary: "the open count is the number of tasks not completed") { list in
            let open = list.tasks.count { !$0.isCompleted }
            return open == list.openCount ? nil : "the list counts \(list.openCount) open tasks and holds \(open)"
        },
        Invariant(name: "unique-ids", summary: "no task id is used twice") { list in
            Set(list.tasks.map(\.id)).count == list.tasks.count ? nil : "a task id is used twice"
        },
    ]
}

/// The rows a list keeps beside its events: none, ever. A type nobody can make rather than `Never`,
/// whose every use the compiler flags as code that cannot run, in the core compiled for the list.
public struct NoKeptRow: Equatable, Sendable {
    private init() {}
}
