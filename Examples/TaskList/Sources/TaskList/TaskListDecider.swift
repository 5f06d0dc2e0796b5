public import Deciding

/// The to-do list's rules, a pure `decide` and a total `evolve`: no I/O, no clock, no randomness.
public enum TaskListDecider {
    public static let initialState = TaskList()
    public static let reducerVersion = 1

    /// Field checks first (the ids and titles the kinds declare), then the list's rules.
    public static func decide(_ command: TaskCommand, state: TaskList, context: Void = ()) throws(Rejection) -> [TaskEvent] {
        if let violation = command.fieldViolation { throw violation }
        return try decideValidated(command, state: state, context: context)
    }

    /// The list's rules alone, for a writer that ran the field checks earlier (SPEC §3 puts the
    /// command-id and version checks between the two).
    public static func decideValidated(_ command: TaskCommand, state: TaskList, context: Void = ()) throws(Rejection) -> [TaskEvent] {
        switch command {
        case .add(let add):
            if state.task(add.taskId) != nil {
                throw Rejection(.taskExists, "The list already has a task \"\(add.taskId)\"; give the new one another id.")
            }
            if state.openCount >= TaskList.maximumOpenTasks {
                throw Rejection(
                    .tooManyOpenTasks, "The list has \(TaskList.maximumOpenTasks) open tasks, its most; complete one before adding another.")
            }
            return [.added(.init(taskId: add.taskId, title: add.title))]
        case .rename(let rename):
            _ = try existing(rename.taskId, in: state)
            return [.renamed(.init(taskId: rename.taskId, title: rename.title))]
        case .complete(let complete):
            if try existing(complete.taskId, in: state).isCompleted {
                throw Rejection(.taskAlreadyCompleted, "Task \"\(complete.taskId)\" is already completed; reopen it first to complete it again.")
            }
            return [.completed(.init(taskId: complete.taskId))]
        case .reopen(let reopen):
            if try !existing(reopen.taskId, in: state).isCompleted {
                throw Rejection(.taskNotCompleted, "Task \"\(reopen.taskId)\" is open; only a completed task can be reopened.")
            }
            return [.reopened(.init(taskId: reopen.taskId))]
        }
    }

    public static func evolve(_ state: inout TaskList, _ event: TaskEvent) {
        switch event {
        case .added(let added): state.add(added.taskId, title: added.title)
        case .renamed(let renamed): state.rename(renamed.taskId, title: renamed.title)
        case .completed(let completed): state.setCompleted(completed.taskId, true)
        case .reopened(let reopened): state.setCompleted(reopened.taskId, false)
        // The log's own events change no task.
        case .system: break
        }
    }

    private static func existing(_ id: String, in state: TaskList) throws(Rejection) -> TaskList.Task {
        guard let task = state.task(id) else {
            throw Rejection(.taskNotFound, "The list has no task \"\(id)\"; add it first, or check the id.")
        }
        return task
    }
}

/// The refusals of the list's rules, beside the log's own codes.
extension RejectionCode {
    public static let taskExists = RejectionCode(rawValue: "taskExists")
    public static let taskNotFound = RejectionCode(rawValue: "taskNotFound")
    public static let taskAlreadyCompleted = RejectionCode(rawValue: "taskAlreadyCompleted")
    public static let taskNotCompleted = RejectionCode(rawValue: "taskNotCompleted")
    public static let tooManyOpenTasks = RejectionCode(rawValue: "tooManyOpenTasks")

    /// The list's codes, in the order its rules check them.
    public static let taskListCodes: [RejectionCode] = [.taskExists, .tooManyOpenTasks, .taskNotFound, .taskAlreadyCompleted, .taskNotCompleted]
}
