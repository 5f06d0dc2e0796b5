public import Deciding

/// The to-do list's events: what happened to a task, as the log records it.
public enum TaskEvent: DomainEvent {
    public static let kinds = EventKindTable<TaskEvent>()

    case added(Added)
    case renamed(Renamed)
    case completed(Completed)
    case reopened(Reopened)
    /// The log's own events (a stream forgotten), which any domain's log records.
    case system(SystemEvent)

    public var systemEvent: SystemEvent? { if case .system(let event) = self { event } else { nil } }

    public struct Added: EventPayload {
        public static let declaration = EventDeclaration("task.added", tag: 1, "A task was added, open.")
        public var taskId = ""
        public var title = ""

        public init() {}
        public init(taskId: String, title: String) { (self.taskId, self.title) = (taskId, title) }

        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("taskId", .identifier, column: .taskId, "The task's id."), &taskId)
            try v.visit(Field("title", .text, column: .title, "Its title."), &title)
        }
    }

    public struct Renamed: EventPayload {
        public static let declaration = EventDeclaration("task.renamed", tag: 2, "A task was given a new title.")
        public var taskId = ""
        public var title = ""

        public init() {}
        public init(taskId: String, title: String) { (self.taskId, self.title) = (taskId, title) }

        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("taskId", .identifier, column: .taskId, "The task's id."), &taskId)
            try v.visit(Field("title", .text, column: .title, "Its new title."), &title)
        }
    }

    public struct Completed: EventPayload {
        public static let declaration = EventDeclaration("task.completed", tag: 3, "A task was marked done.")
        public var taskId = ""

        public init() {}
        public init(taskId: String) { self.taskId = taskId }

        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("taskId", .identifier, column: .taskId, "The task's id."), &taskId)
        }
    }

    public struct Reopened: EventPayload {
        public static let declaration = EventDeclaration("task.reopened", tag: 4, "A done task was marked open again.")
        public var taskId = ""

        public init() {}
        public init(taskId: String) { self.taskId = taskId }

        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("taskId", .identifier, column: .taskId, "The task's id."), &taskId)
        }
    }

    public enum Kind: CaseIterable, Hashable, Sendable {
        case added, renamed, completed, reopened
        case system(SystemEvent.Kind)

        public static let allCases: [Kind] = [.added, .renamed, .completed, .reopened] + SystemEvent.Kind.allCases.map(Kind.system)
    }

    public func visitPayload<V: EventPayloadVisitor>(_ v: inout V) throws {
        switch self {
        case .added(let payload): try v.visit(payload)
        case .renamed(let payload): try v.visit(payload)
        case .completed(let payload): try v.visit(payload)
        case .reopened(let payload): try v.visit(payload)
        case .system(let event): try event.visitPayload(&v)
        }
    }

    public static func decode<D: PayloadDecoder>(_ kind: Kind, _ d: inout D) throws -> TaskEvent {
        switch kind {
        case .added: .added(try d.event(Added.self))
        case .renamed: .renamed(try d.event(Renamed.self))
        case .completed: .completed(try d.event(Completed.self))
        case .reopened: .reopened(try d.event(Reopened.self))
        case .system(let kind): .system(try SystemEvent.decode(kind, &d))
        }
    }
}

/// The CSV columns of the to-do list's events.
extension EventColumn {
    public static let taskId = EventColumn("task_id", "VARCHAR", order: 0, "task.*: the task's id")
    public static let title = EventColumn("title", "VARCHAR", order: 1, "task.added, task.renamed: the title")
}
