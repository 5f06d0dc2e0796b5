/// One list's state: its tasks in the order they were added, and how many are open.
public struct TaskList: Equatable, Sendable {
    public struct Task: Equatable, Sendable {
        public var id: String
        public var title: String
        public var isCompleted: Bool

        public init(id: String, title: String, isCompleted: Bool) { (self.id, self.title, self.isCompleted) = (id, title, isCompleted) }
    }

    /// Oldest first.
    public private(set) var tasks: [Task] = []
    public private(set) var openCount = 0

    /// At most this many tasks are open at once: a list is something a person reads.
    public static let maximumOpenTasks = 500

    public init() {}

    /// A list holding `tasks` in their order, as a fold of their additions would make it: a task
    /// whose id an earlier one took is left out (what storage reads back is rebuilt through this).
    public init(tasks: [Task]) {
        for task in tasks {
            add(task.id, title: task.title)
            if task.isCompleted { setCompleted(task.id, true) }
        }
    }

    public func task(_ id: String) -> Task? { tasks.first { $0.id == id } }

    /// Adds an open task; a second task of one id leaves the list as it was (a fold is total).
    mutating func add(_ id: String, title: String) {
        guard task(id) == nil else { return }
        tasks.append(Task(id: id, title: title, isCompleted: false))
        openCount += 1
    }

    mutating func rename(_ id: String, title: String) {
        guard let index = tasks.firstIndex(where: { $0.id == id }) else { return }
        tasks[index].title = title
    }

    /// Marks a task done or open; a task already so, or none of that id, leaves the list as it was.
    mutating func setCompleted(_ id: String, _ completed: Bool) {
        guard let index = tasks.firstIndex(where: { $0.id == id }), tasks[index].isCompleted != completed else { return }
        tasks[index].isCompleted = completed
        openCount += completed ? -1 : 1
    }
}
