import Deciding
import FlowLogStore

/// Cached states that other writers left behind, and loading a batch's streams at once.
///
/// The cache is only a hint. A command *accepted* against a stale state is caught by the log: its
/// request carries the version it was decided against, the append answers `.conflict`, and the
/// round after reloads the stream and decides again. A command *rejected* against a stale state
/// never reaches the log (a product removed by another process, added again here at a new price,
/// looked like a price mismatch), so each round looks up, once, the current version of every
/// stream with a rejection decided against its cached state; a stream that moved is reloaded and
/// all its commands of the round decided again. That costs a lookup only when something was
/// rejected, instead of one per stream and batch before every batch.
extension CommandProcessor {
    /// The streams among `suspects` whose log version is not the one their cached state had; each
    /// is checked at most once per `handle` (`checked`).
    func staleStreams(_ suspects: Set<String>, working: WorkingStreams, checked: inout Set<String>) throws -> Set<String> {
        guard !suspects.isEmpty else { return [] }
        checked.formUnion(suspects)
        let versions = try log.currentVersions(of: Array(suspects))
        return suspects.filter { versions[$0] != working[$0]?.loadedVersion }
    }

    /// The states of the round's streams that are not cached, read together where the log can
    /// (`StreamBatchReading`); an embedded log leaves them to be loaded one by one as they come.
    func preload(_ batch: [CommandEnvelope], indices: [Int], capacity: Int) throws -> WorkingStreams {
        var working = WorkingStreams(capacity: capacity)
        guard let reader = log.capabilities.batchReading else { return working }
        var missing: [String] = []
        var seen: Set<String> = []
        for index in indices {
            let stream = batch[index].stream
            if cache[stream] == nil, Identifier.isValid(stream), seen.insert(stream).inserted { missing.append(stream) }
        }
        guard missing.count > 1 else { return working }
        for (stream, loaded) in try reader.states(ofStreams: missing) {
            _ = working.add(stream, hash: stream.hashValue, WorkingStream(Self.readied(loaded), cached: false))
        }
        return working
    }

    /// The receipts of the round's command ids, read together where the log can (`nil`: look
    /// each up as it comes). The append checks them again under its lock, as it always did.
    func prefetchReceipts(_ batch: [CommandEnvelope], indices: [Int]) throws -> [String: [String: CommandReceipt]]? {
        guard let reader = log.capabilities.batchReading else { return nil }
        var commands: [(stream: String, commandId: String)] = []
        for index in indices {
            if let id = batch[index].commandId { commands.append((batch[index].stream, id)) }
        }
        guard commands.count > 1 else { return nil }
        return try reader.receipts(of: commands)
    }
}
