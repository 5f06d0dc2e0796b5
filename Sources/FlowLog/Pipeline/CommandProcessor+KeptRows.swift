import FlowLogStore

/// The cache keeps states without their older kept rows (`StateCache`); the few commands that read
/// those rows are decided against the stream's whole state, loaded again from the log.
extension CommandProcessor {
    /// Drops from the cache every stream of the round that a command needing its kept rows names and
    /// whose cached state lacks some, before the round takes its states: the round then loads it
    /// whole, as it loads a stream it never saw.
    func dropStatesMissingRows(_ batch: [CommandEnvelope], indices: [Int]) {
        cache.keepsLatestRowOnly = log.capabilities.keepsRowsApart
        // A cache that never slims, or holds no slimmed state now, has only whole states: nothing
        // to look up, unless states loaded ahead came with the batch.
        guard cache.keepsLatestRowOnly, cache.partialCount > 0 || !prefetched.isEmpty else { return }
        // Only commands that may need rows at all, and of those only a partial stream's state is
        // looked at: copying every command's cached state to ask cost a twentieth of a send into
        // a grown log, where most states are slim.
        // A state loaded ahead was slimmed for its own read, without this command when the command
        // came in a later read of the same commit; it is dropped as a cached one is (and unused
        // anyway where the cache holds the stream).
        for index in indices where LogDecider.mayNeedKeptRows(batch[index].command) {
            let stream = batch[index].stream
            if cache.isPartial(stream) {
                if let cached = cache[stream], LogDecider.needsKeptRows(batch[index].command, state: cached.state) { cache.remove(stream) }
            } else if let ahead = prefetched[stream], !LogDecider.holdsAllKeptRows(ahead.state),
                LogDecider.needsKeptRows(batch[index].command, state: ahead.state)
            {
                prefetched.drop(stream)
            }
        }
    }

    /// The state a request carries for the log to keep as a head or a snapshot. A log that keeps
    /// the rows apart stores such states without them, so it gets the state without its older
    /// rows: a copy of the whole history, held by the request, made the stream's next row copy
    /// the history again, once for each head (one every 16 versions), and a `send` into one long
    /// session went well past its memory bound that way.
    func stateToKeep(_ state: LogDecider.State) -> LogDecider.State {
        guard cache.keepsLatestRowOnly else { return state }
        var kept = state
        LogDecider.keepOnlyLatestKeptRow(&kept)
        return kept
    }
}
