import FlowLogStore

/// A list's state as text (`tasklog state`, `replay`, `bisect`): its tasks, oldest first.
enum StateText {
    static func lines(_ state: LogDecider.State, stream: String, version: Int) -> [String] {
        var lines = ["Stream \(stream), version \(version)", "", "Tasks (\(state.openCount) open of \(state.tasks.count))"]
        if state.tasks.isEmpty { lines.append("  (none)") }
        for task in state.tasks {
            lines.append(
                "  [\(task.isCompleted ? "x" : " ")] \(TextPadding.pad(TerminalText.escaped(task.id), 12)) \(TerminalText.escaped(task.title))")
        }
        return lines
    }

    /// One line (`replay --summary`).
    static func summary(_ state: LogDecider.State) -> String {
        "\(state.tasks.count) task\(state.tasks.count == 1 ? "" : "s"), \(state.openCount) open"
    }
}
