public import FlowLogBasics
public import FlowLogStore
import LMDB

/// `flowlog verify` on LMDB: the hash chain and contiguity of the records, the indexes against
/// them (`IntegrityWalk`), each stream's stored version, the shape of the fingerprint runs, and the
/// batch records of a schema-4 log (`checkBatchRecords`), and the data file's pages (`StructureWalk`).
extension LMDBEventLog: IntegrityChecking {
    public func checkIntegrity(progress: Progress?) throws -> IntegrityReport {
        try checkIntegrity(progress: progress, batchSize: IntegrityWalk.defaultBatchSize)
    }

    /// `mostStreamsHeld`: the most streams a log may have for the walk to keep each one's last
    /// version (`IntegrityWalk.bounded`).
    func checkIntegrity(progress: Progress?, batchSize: Int, mostStreamsHeld: Int = IntegrityWalk.defaultMostStreamsHeld) throws -> IntegrityReport {
        let fast = try checkIntegrityByDigests(progress: progress, mostStreamsHeld: mostStreamsHeld)
        let pages = fast.pages
        if var report = fast.report {
            for page in pages { report.notePage(page.page, database: page.database, page.detail) }
            return report
        }
        var report = try checkIntegrityEntryByEntry(progress: progress, batchSize: batchSize, mostStreamsHeld: mostStreamsHeld)
        if report.isReadable, let entries = fast.strayStreamIndexEntries {
            // Every event found its entry, yet the index holds something else as well.
            report.note(0, nil, "the stream index holds \(entries) entries for \(report.events) events: entries that point at no event")
        }
        for page in pages { report.notePage(page.page, database: page.database, page.detail) }
        return report
    }

    /// The data file's pages, walked from the meta page (`StructureWalk`): LMDB keeps no checksums
    /// of them, and the walk of the records above reads only the pages its lookups lead to. In
    /// `txn`'s snapshot, the leaves `scans` holds (found whole as the walks of records read them)
    /// are not read again.
    func walkStructure(_ txn: Transaction? = nil, scans: PageScans? = nil) throws -> [PageProblem] {
        do {
            if let txn { return try environment.walkStructure(in: txn, scans: scans) }
            return try environment.walkStructure()
        } catch let error as LMDBError {
            throw FlowLogError.reading(error, path: path)
        }
    }

    /// The fast way for a log that is intact: the records walked on this thread, the two indexes
    /// on another, from the same snapshot, compared as digests (`IndexDigest`). `nil` when anything
    /// is off (a problem, a newer record, digests that differ, or a writer that committed between
    /// the two snapshots' starts): the walk entry by entry then finds and names it. The data file's
    /// pages are walked either way, in the same snapshot, after the records and indexes (whose
    /// walks check the leaves they read as they read them: `PageScans`).
    func checkIntegrityByDigests(progress: Progress?, mostStreamsHeld: Int = IntegrityWalk.defaultMostStreamsHeld) throws -> (
        report: IntegrityReport?, strayStreamIndexEntries: Int?, pages: [PageProblem]
    ) {
        try reading { txn in
            let scans = PageScans(txn)
            let indexes = IndexWalkThread(log: self, scans: scans)
            defer { indexes.waitUntilDone() }
            var report = IntegrityReport()
            var walk = try IntegrityWalk(log: self, txn: txn, mostStreamsHeld: mostStreamsHeld, digesting: true, scans: scans)
            try walk.checkRecords(&report, progress: progress)
            try walk.checkStreams(&report)
            let indexed = try indexes.result()
            let pages = try walkStructure(txn, scans: scans)
            guard let (snapshot, digests) = indexed, snapshot == txn.snapshotID,
                !walk.foundProblems, report.isReadable, let own = walk.digests
            else { return (nil, nil, pages) }
            guard own.streamIndex == digests.streamIndex, own.eventIds == digests.eventIds else {
                return (nil, own.streamIndex == digests.streamIndex ? nil : digests.streamIndex.count, pages)
            }
            try checkFingerprintRuns(&report, last: try head(txn).position, txn)
            try checkBatchRecords(&report, txn)
            progress?.finish()
            return (report, nil, pages)
        }
    }

    /// Today's walk, looking each event's index entries up in batches: it names every problem.
    func checkIntegrityEntryByEntry(progress: Progress?, batchSize: Int, mostStreamsHeld: Int = IntegrityWalk.defaultMostStreamsHeld) throws
        -> IntegrityReport
    {
        var report = IntegrityReport()
        try reading { txn in
            var walk = try IntegrityWalk(log: self, txn: txn, batchSize: batchSize, mostStreamsHeld: mostStreamsHeld)
            try walk.checkRecords(&report, progress: progress)
            try walk.checkStreams(&report)
            let indexedIds = try txn.count(eventIdsDB)
            if indexedIds != report.events {
                report.note(
                    0, nil, "the event id index holds \(indexedIds) ids for \(report.events) events (an event was removed, or an index entry)")
            }
            try checkFingerprintRuns(&report, last: try head(txn).position, txn)
            try checkBatchRecords(&report, txn)
        }
        progress?.finish()
        return report
    }

    /// Each entry of the `fingerprints` database is a run of whole fingerprints of positions of the
    /// log, after the run before it. Whether a fingerprint is right only a replay can tell
    /// (`replay --verify`); a malformed run would stop one.
    private func checkFingerprintRuns(_ report: inout IntegrityReport, last: Int, _ txn: Transaction) throws {
        guard let fingerprintsDB else { return }
        try txn.withCursor(fingerprintsDB) { cursor in
            var previousEnd = 1
            var entry = try cursor.first()
            while let (key, value) = entry {
                let run = FingerprintRuns.Stored((key, value))!
                if key.count != 8 {
                    report.note(0, nil, "the fingerprints database holds a key of \(key.count) bytes, which is not a position")
                } else if !run.isWellFormed {
                    report.note(
                        run.start, nil, "the state fingerprints recorded from this position are \(value.count) bytes long, not whole fingerprints")
                } else if run.start < previousEnd {
                    report.note(run.start, nil, "the state fingerprints recorded from this position overlap those recorded before them")
                } else if run.end - 1 > last {
                    report.note(
                        run.start, nil,
                        "state fingerprints are recorded from this position through position \(run.end - 1), past the log's last position \(last)")
                }
                if key.count == 8 { previousEnd = max(previousEnd, run.end) }
                entry = try cursor.next()
            }
        }
    }
}
