public import Deciding

/// The to-do list's commands: each kind declared once, as a payload with its fields, on the same
/// kinds machinery as any FlowLog domain.
public enum TaskCommand: DomainCommand {
    public static let kinds = CommandKindTable<TaskCommand>()

    case add(Add)
    case rename(Rename)
    case complete(Complete)
    case reopen(Reopen)

    public struct Add: CommandPayload {
        public static let declaration = CommandDeclaration("task.add", actor: .user, cli: "task", "add", "Add a task to the list.")
        public var taskId = ""
        public var title = ""

        public init() {}
        public init(taskId: String, title: String) { (self.taskId, self.title) = (taskId, title) }

        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("taskId", .identifier, role: "task id", option: "task", "The new task's id."), &taskId)
            try v.visit(Field("title", .text, role: "title", option: "title", "What is to be done."), &title)
        }
    }

    public struct Rename: CommandPayload {
        public static let declaration = CommandDeclaration("task.rename", actor: .user, cli: "task", "rename", "Give a task a new title.")
        public var taskId = ""
        public var title = ""

        public init() {}
        public init(taskId: String, title: String) { (self.taskId, self.title) = (taskId, title) }

        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("taskId", .identifier, role: "task id", option: "task", "The task's id."), &taskId)
            try v.visit(Field("title", .text, role: "title", option: "title", "Its new title."), &title)
        }
    }

    public struct Complete: CommandPayload {
        public static let declaration = CommandDeclaration("task.complete", actor: .user, cli: "task", "complete", "Mark a task done.")
        public var taskId = ""

        public init() {}
        public init(taskId: String) { self.taskId = taskId }

        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("taskId", .identifier, role: "task id", option: "task", "The task's id."), &taskId)
        }
    }

    public struct Reopen: CommandPayload {
        public static let declaration = CommandDeclaration("task.reopen", actor: .user, cli: "task", "reopen", "Mark a done task open again.")
        public var taskId = ""

        public init() {}
        public init(taskId: String) { self.taskId = taskId }

        public mutating func visitFields<V: FieldVisitor>(_ v: inout V) throws {
            try v.visit(Field("taskId", .identifier, role: "task id", option: "task", "The task's id."), &taskId)
        }
    }

    public enum Kind: CaseIterable, Hashable, Sendable {
        case add, rename, complete, reopen
    }

    public func visitPayload<V: CommandPayloadVisitor>(_ v: inout V) throws {
        switch self {
        case .add(let payload): try v.visit(payload)
        case .rename(let payload): try v.visit(payload)
        case .complete(let payload): try v.visit(payload)
        case .reopen(let payload): try v.visit(payload)
        }
    }

    public static func decode<D: PayloadDecoder>(_ kind: Kind, _ d: inout D) throws -> TaskCommand {
        switch kind {
        case .add: .add(try d.payload(Add.self))
        case .rename: .rename(try d.payload(Rename.self))
        case .complete: .complete(try d.payload(Complete.self))
        case .reopen: .reopen(try d.payload(Reopen.self))
        }
    }
}
