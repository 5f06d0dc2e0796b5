/// The name of the program whose messages these are: `flowlog`, or another program built on the
/// same core (Examples/TaskList's `tasklog`), so that a message that says what to run next names
/// a command the reader has.
public enum ProgramName {
    /// Set once by the command line, before parsing, on its only thread; read by messages only.
    nonisolated(unsafe) public static var current = "flowlog"
    /// A command that starts a log, as the program takes it after its name: what a message
    /// suggests where there is no log yet.
    nonisolated(unsafe) public static var firstCommand = "demo"
}
