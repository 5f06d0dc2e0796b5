import FlowDomain
import FlowLog
import FlowLogLMDB

/// Builds the concrete objects the subcommands work with: the one place that names a backend.
enum Composition {
    static func openLog(_ global: GlobalOptions, access: LogAccess) throws -> any LogStore {
        try LMDBEventLog(path: global.logPath, access: access)
    }

    static func processor(for log: any EventLog) -> CommandProcessor {
        let clock = SystemClock()
        return CommandProcessor(log: log, clock: clock, ids: UUIDv7Generator(clock: clock))
    }
}
