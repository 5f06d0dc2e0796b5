public import FlowLogStore
import LMDB

/// Projectors' checkpoints, failures and acknowledged marks live in the log's `projections`
/// database, so every process sees the same ones; the read models beside them (`rm.*`).
extension LMDBEventLog: CheckpointStore {
    /// Names of the databases the projections keep beside the log.
    static let projectionDatabaseNames = ["projections", "rm.state", "rm.orders", "rm.flags"]

    func projectionDatabases(create: Bool) throws -> [Database]? {
        do {
            return try environment.openDatabases(named: Self.projectionDatabaseNames, create: create)
        } catch let error as LMDBError where error.isNotFound {
            return nil
        }
    }

    public func checkpoint(of projector: String) throws -> Int {
        guard let databases = try projectionDatabases(create: false) else { return 0 }
        return try reading { txn in try checkpoint(of: projector, txn, databases) }
    }

    /// A projector's checkpoint as the transaction sees it: 0 before its first event.
    func checkpoint(of projector: String, _ txn: Transaction, _ databases: [Database]) throws -> Int {
        try txn.get(databases[0], key: Array(("checkpoint:" + projector).utf8)).map { Keys.decodeInt($0) } ?? 0
    }

    func setCheckpoint(_ position: Int, of projector: String, _ txn: Transaction, _ databases: [Database]) throws {
        try txn.put(databases[0], key: Array(("checkpoint:" + projector).utf8), value: Keys.littleEndian(UInt64(position)))
    }

    public func setCheckpoint(_ position: Int, of projector: String) throws {
        guard let databases = try projectionDatabases(create: true) else { return }
        try environment.write { txn in try setCheckpoint(position, of: projector, txn, databases) }
    }

    /// The last position whose calls a tracker's collector acknowledged before its latest rebuild:
    /// kept apart from the checkpoint, which a rebuild sets back to 0.
    public func acknowledgedPosition(of projector: String) throws -> Int {
        guard let databases = try projectionDatabases(create: false) else { return 0 }
        return try reading { txn in
            try txn.get(databases[0], key: Array(("acknowledged:" + projector).utf8)).map { Keys.decodeInt($0) } ?? 0
        }
    }

    /// Sets a tracker's checkpoint back to 0 in one transaction with its acknowledged mark, which
    /// becomes the furthest of the mark and the checkpoint (everything up to the checkpoint was
    /// acknowledged), or 0 when `resending`.
    public func rewindTracker(_ projector: String, resending: Bool) throws {
        guard let databases = try projectionDatabases(create: true) else { return }
        try environment.write { txn in
            let key = Array(("acknowledged:" + projector).utf8)
            if resending {
                try txn.delete(databases[0], key: key)
            } else {
                let mark = try txn.get(databases[0], key: key).map { Keys.decodeInt($0) } ?? 0
                let acknowledged = max(mark, try checkpoint(of: projector, txn, databases))
                try txn.put(databases[0], key: key, value: Keys.littleEndian(UInt64(acknowledged)))
            }
            try setCheckpoint(0, of: projector, txn, databases)
        }
    }

    public func setProjectionStatus(_ projector: String, failure: String?) throws {
        guard let databases = try projectionDatabases(create: true) else { return }
        try environment.write { txn in
            let key = Array(("failure:" + projector).utf8)
            if let failure { try txn.put(databases[0], key: key, value: Array(failure.utf8)) } else { try txn.delete(databases[0], key: key) }
        }
    }

    public func projectionStatus(of names: [String]) throws -> [ProjectionStatus] {
        let last = try lastPosition()
        let databases = try projectionDatabases(create: false)
        return try names.map { name in
            let checkpoint = try checkpoint(of: name)
            let failure: String? = try databases.flatMap { databases in
                try reading { txn in try txn.get(databases[0], key: Array(("failure:" + name).utf8)).map { String(decoding: $0, as: UTF8.self) } }
            }
            return ProjectionStatus(name: name, checkpoint: checkpoint, lag: last - checkpoint, failure: failure)
        }
    }

    public func leaseProjector(_ name: String) throws -> any ProjectorLease {
        try ProjectorLock(projector: name, log: self)
    }

    public func leaseHolders(of names: [String]) throws -> [String: LeaseHolder] {
        var holders: [String: LeaseHolder] = [:]
        for name in names { holders[name] = ProjectorLock.holder(of: name, in: self) }
        return holders
    }
}
