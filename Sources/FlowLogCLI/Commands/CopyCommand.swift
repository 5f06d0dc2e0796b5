import ArgumentParser
import FlowLogBasics
import FlowLogSystem

/// `flowlog copy --from SRC --to DST`: a whole log into an empty one of any backend.
struct CopyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy a whole log into an empty log of any backend (LMDB folder or postgres:// URL).",
        discussion: """
            Positions, versions, event ids, timestamps and the hash chain come out the same, so `verify` \
            passes on the copy and its `export` is byte for byte the source's. All or nothing: the copy is \
            the destination's import (COPY for PostgreSQL). The destination must hold no events. Progress \
            goes to stderr when it is a terminal.
            """)

    @Option(help: ArgumentHelp("The log to copy: a folder or a postgres:// URL.", valueName: "log")) var from: String
    @Option(help: ArgumentHelp("The empty log to copy into (created when it does not exist).", valueName: "log")) var to: String
    @OptionGroup var format: FormatOptions

    func run() throws {
        try CommandExecution.run { output in
            guard from != to else {
                throw CLIFailure("--from and --to name the same log; give an empty log to copy into.", .usage)
            }
            let source = try Backend(from).open(access: .readOnly)
            let destinationExisted = Backend(to).exists
            let progress = Progress(label: "copy", total: try source.lastPosition(), enabled: isatty(STDERR_FILENO) == 1)
            let (count, location): (Int, String)
            do {
                (count, location) = try Backend(to).copy(from: source, progress: progress) { destination in
                    let existing = try destination.lastPosition()
                    guard existing == 0 else {
                        throw CLIFailure(
                            "\(destination.location) already holds \(existing) events; copy into an empty log (a new folder, or a new ?schema= of a database).",
                            .usage)
                    }
                }
            } catch {
                if !destinationExisted, case .lmdb(let path) = Backend(to) {
                    Composition.removeLogFiles(path)
                }
                throw error
            }
            if format.isJSON {
                output.json { json in
                    json.beginObject()
                    json.key("copied")
                    json.int(count)
                    json.key("from")
                    json.string(source.location)
                    json.key("to")
                    json.string(location)
                    json.endObject()
                }
            } else {
                output.line("copied \(count) events from \(source.location) to \(location)")
            }
        }
    }
}
