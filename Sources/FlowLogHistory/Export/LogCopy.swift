public import FlowLogBasics
public import FlowLogStore

/// `flowlog copy --from SRC --to DST`: a whole log into another of any backend, through the
/// destination's import (all or nothing), keeping positions, versions, event ids, timestamps and
/// actors; records are encoded the same way everywhere, so the hash chain comes out the same and
/// `export` of the copy is byte for byte the export of the source.
public enum LogCopy {
    /// Copies every event of `source` into `destination`, which must be empty (or end where the
    /// source's copied part begins); returns the number of events copied. The snapshot interval goes
    /// along when both logs keep one. An event the destination refuses is named by its position
    /// (reported as the import's line).
    @discardableResult
    public static func copy(from source: any EventLog, to destination: any EventLog & EventImporting, progress: Progress? = nil) throws -> Int {
        if let from = source.capabilities.snapshots, let to = destination.capabilities.snapshots {
            try to.setSnapshotInterval(try from.snapshotInterval())
        }
        let count = try destination.importEvents { sink in try feed(source, into: sink, progress: progress) }
        progress?.finish()
        return count
    }

    /// Hands every record of `source` to `sink`, in position order: the copy's side of an import that
    /// the destination runs its own way (an LMDB log staged, `LMDBEventLog.importEvents(intoLogAt:…)`).
    /// An event the sink refuses is named by its position (reported as the import's line).
    public static func feed(_ source: any EventLog, into sink: any EventSink, progress: Progress?) throws {
        // Forgotten records go along, so that positions stay contiguous and the chain whole.
        let copyOne: (RecordedEvent) throws -> Bool = { event in
            try sink.add(event, line: event.position)
            progress?.advance(to: event.position)
            return true
        }
        if let forgetting = source.capabilities.forgetting {
            try forgetting.forEachRecord(from: 1, through: nil, copyOne)
        } else {
            try source.forEachEvent(from: 1, through: nil, copyOne)
        }
    }
}
