import FlowDomain
import FlowLog

/// Builds the concrete objects the subcommands work with.
enum Composition {
    static func openLog(_ global: GlobalOptions, access: LMDBEventLog.Access) throws -> LMDBEventLog {
        try LMDBEventLog(path: global.logPath, access: access)
    }

    static func processor(for log: any EventLog) -> CommandProcessor {
        let clock = SystemClock()
        return CommandProcessor(log: log, clock: clock, ids: UUIDv7Generator(clock: clock))
    }
}
