import Deciding
import TaskList
import Testing

/// Given the events of a list, when a command comes, then these events or this refusal.
private func given(_ events: [TaskEvent] = [], when command: TaskCommand) -> Result<[TaskEvent], Rejection> {
    var state = TaskListDecider.initialState
    for event in events { TaskListDecider.evolve(&state, event) }
    do throws(Rejection) {
        return .success(try TaskListDecider.decide(command, state: state))
    } catch {
        return .failure(error)
    }
}

private func code(_ result: Result<[TaskEvent], Rejection>) -> RejectionCode? {
    if case .failure(let rejection) = result { rejection.code } else { nil }
}

private func added(_ id: String, _ title: String = "Buy milk") -> TaskEvent { .added(.init(taskId: id, title: title)) }

@Suite("A to-do list's rules (given, when, then)")
struct TaskListRulesTests {
    @Test func anAddedTaskIsOpen() {
        #expect(given(when: .add(.init(taskId: "t1", title: "Buy milk"))) == .success([added("t1")]))
        var list = TaskList()
        TaskListDecider.evolve(&list, added("t1"))
        #expect(list.openCount == 1 && list.task("t1")?.isCompleted == false)
    }

    @Test func aTaskIdIsTakenOnce() {
        #expect(code(given([added("t1")], when: .add(.init(taskId: "t1", title: "Again")))) == .taskExists)
    }

    @Test func aCompletedTaskCannotBeCompletedAgain() {
        let history = [added("t1"), .completed(.init(taskId: "t1"))]
        #expect(code(given(history, when: .complete(.init(taskId: "t1")))) == .taskAlreadyCompleted)
        #expect(given(history, when: .reopen(.init(taskId: "t1"))) == .success([.reopened(.init(taskId: "t1"))]))
        #expect(
            given(history + [.reopened(.init(taskId: "t1"))], when: .complete(.init(taskId: "t1"))) == .success([.completed(.init(taskId: "t1"))]))
    }

    @Test func onlyACompletedTaskIsReopened() {
        #expect(code(given([added("t1")], when: .reopen(.init(taskId: "t1")))) == .taskNotCompleted)
    }

    @Test func aTaskNotOnTheListIsNotFound() {
        #expect(code(given(when: .rename(.init(taskId: "t9", title: "x")))) == .taskNotFound)
        #expect(code(given(when: .complete(.init(taskId: "t9")))) == .taskNotFound)
        #expect(code(given(when: .reopen(.init(taskId: "t9")))) == .taskNotFound)
        #expect(
            given([added("t9")], when: .rename(.init(taskId: "t9", title: "Buy oat milk")))
                == .success([.renamed(.init(taskId: "t9", title: "Buy oat milk"))]))
    }

    @Test func atMost500TasksAreOpen() {
        let full = (0..<500).map { added("t\($0)") }
        #expect(code(given(full, when: .add(.init(taskId: "t500", title: "One more")))) == .tooManyOpenTasks)
        // A completed task makes room; a reopened one fills it again.
        let oneDone = full + [.completed(.init(taskId: "t0"))]
        #expect(given(oneDone, when: .add(.init(taskId: "t500", title: "One more"))) == .success([added("t500", "One more")]))
        #expect(code(given(oneDone + [added("t500")], when: .reopen(.init(taskId: "t0")))) == nil)
    }

    /// The kinds' declared field types check a command before any rule, in the spec's order.
    @Test func fieldsAreCheckedByTheirDeclaredTypes() {
        #expect(code(given(when: .add(.init(taskId: "not an id", title: "x")))) == .invalidIdentifier)
        #expect(code(given(when: .add(.init(taskId: "t1", title: String(repeating: "x", count: 201))))) == .invalidText)
        #expect(code(given(when: .add(.init(taskId: "", title: String(repeating: "x", count: 201))))) == .invalidIdentifier)
        #expect(code(given([added("t1")], when: .add(.init(taskId: "t1", title: String(repeating: "x", count: 201))))) == .invalidText)
    }
}

@Suite("A to-do list's fold and invariants")
struct TaskListFoldTests {
    /// `evolve` is total: events no rule would make today (a task completed twice, one never added,
    /// an id added twice) leave the list whole, and only `open-tasks` can be broken by events.
    @Test func anyEventsFoldWithoutBreakingTheCountsOrIds() {
        var sequence = Scrambled(seed: 7)
        for _ in 0..<200 {
            var list = TaskListDecider.initialState
            for _ in 0..<50 {
                let id = "t\(sequence.next() % 6)"
                let event: TaskEvent =
                    switch sequence.next() % 4 {
                    case 0: added(id)
                    case 1: .renamed(.init(taskId: id, title: "r"))
                    case 2: .completed(.init(taskId: id))
                    default: .reopened(.init(taskId: id))
                    }
                TaskListDecider.evolve(&list, event)
                #expect(TaskListDecider.invariant(named: "all")?.violation(in: list) == nil)
            }
        }
    }

    /// Commands decided one after another never make a list that breaks an invariant.
    @Test func decidedCommandsKeepEveryInvariant() {
        var sequence = Scrambled(seed: 11)
        var list = TaskListDecider.initialState
        var accepted = 0
        for _ in 0..<5_000 {
            let id = "t\(sequence.next() % 700)"
            let command: TaskCommand =
                switch sequence.next() % 5 {
                case 0, 1: .add(.init(taskId: id, title: "Task \(id)"))
                case 2: .rename(.init(taskId: id, title: "Renamed"))
                case 3: .complete(.init(taskId: id))
                default: .reopen(.init(taskId: id))
                }
            guard let events = try? TaskListDecider.decide(command, state: list) else { continue }
            accepted += 1
            for event in events { TaskListDecider.evolve(&list, event) }
            #expect(TaskListDecider.invariant(named: "all")?.violation(in: list) == nil)
        }
        #expect(accepted > 1_000 && list.openCount <= TaskList.maximumOpenTasks)
    }

    /// What `bisect` hunts for: 501 added events, as a build without the limit would record.
    @Test func the501stOpenTaskBreaksOpenTasks() {
        var list = TaskListDecider.initialState
        for index in 0..<500 { TaskListDecider.evolve(&list, added("t\(index)")) }
        #expect(TaskListDecider.invariant(named: "open-tasks")?.violation(in: list) == nil)
        TaskListDecider.evolve(&list, added("t500"))
        #expect(TaskListDecider.invariant(named: "open-tasks")?.violation(in: list) == "501 tasks are open")
        #expect(TaskListDecider.invariant(named: "all")?.violation(in: list) == "open-tasks: 501 tasks are open")
        #expect(TaskListDecider.invariant(named: "no-such") == nil)
        #expect(TaskListDecider.invariantNames == ["open-tasks", "open-count", "unique-ids", "all"])
    }

    @Test func readModelColumnsCountTasks() {
        var list = TaskListDecider.initialState
        for event in [added("a"), added("b"), .completed(.init(taskId: "a"))] { TaskListDecider.evolve(&list, event) }
        #expect(TaskListDecider.stateColumns.map { $0.value(list) } == [.integer(2), .integer(1)])
    }
}

@Suite("A to-do list's kinds")
struct TaskListKindsTests {
    /// The same tables the shop's codecs read build from the list's declarations: each tag and type
    /// name once, each kind found by its tag, its name and its payload's type.
    @Test func theKindTablesDeriveFromTheDeclarations() {
        let events = TaskEvent.kinds
        // The log's own event (a stream forgotten) is among any domain's.
        #expect(events.typeNames == ["task.added", "task.renamed", "task.completed", "task.reopened", "log.streamForgotten"])
        #expect(TaskEvent.system(.streamForgotten(.init(events: 2, reason: "erasure", pseudonym: nil))).systemEvent != nil)
        #expect(TaskEvent.added(.init(taskId: "t", title: "x")).systemEvent == nil)
        #expect(events.stored(tag: 3)?.kind == .completed && events.stored(tag: 9) == nil)
        #expect(events.info(of: .renamed(.init(taskId: "t", title: "x"))).fields.map(\.field.nameText) == ["taskId", "title"])
        #expect(events.columns.map(\.name.description) == ["task_id", "title", "erased_events", "erase_reason", "pseudonym"])
        #expect(events.newestLogSchema == 1)

        let commands = TaskCommand.kinds
        #expect(commands.typeNames == ["task.add", "task.rename", "task.complete", "task.reopen"])
        #expect(commands.info(typeName: "task.complete")?.kind == .complete)
        #expect(commands.command(TaskCommand.Reopen(taskId: "t1")) == .reopen(.init(taskId: "t1")))
        #expect(commands.info(.add).fields.map(\.field.type) == [.identifier, .text])
    }
}

/// A fixed sequence that looks random enough for a property test and repeats on every run: a
/// counter times an odd constant, its high bits folded in.
private struct Scrambled {
    var counter: UInt64
    init(seed: UInt64) { counter = seed }
    mutating func next() -> UInt64 {
        counter &+= 1
        let mixed = counter &* 0x9E37_79B9_7F4A_7C15
        return mixed ^ (mixed >> 29)
    }
}
