import FlowLogLMDB

/// What `flowlog --version` prints: the release, and the log schema this build writes (it reads
/// every schema up to that one).
enum FlowLogVersion {
    static let release = "0.1.0"
    static var description: String { "\(Program.name) \(release) (writes log schema \(LMDBEventLog.logSchemaVersion))" }
}
