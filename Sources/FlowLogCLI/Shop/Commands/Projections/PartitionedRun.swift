import FlowLogBasics
import FlowLogProjections
import FlowLogStore
import FlowLogSystem
import Foundation

/// `projections run --follow` on a log whose trackers are split into parts: any number of such
/// runners share the work, each holding a lease per unit it runs (the storage projector, a
/// tracker's part), and hand units over as runners come and go.
///
/// A runner first takes a *runner slot*, the lease `projections.runner-K` for the lowest free K (a
/// runner beyond the last slot waits for one). Every `interval` seconds it reads which slots are
/// held (`CheckpointStore.leaseHolders`, one query) and so knows how many runners there are and its
/// rank among them; unit `i` (the storage projector, then each tracker's parts, in order) is the
/// work of the runner whose rank is `i` modulo their number. It lets go of what is no longer its
/// own between two batches, and takes what is newly its own once the runner before has let go. A
/// runner that dies drops its leases with its process (or, paused, when they expire), and the
/// others count one runner fewer at their next look and take its units.
///
/// Each tracker part runs on a thread of its own (`PartWorker`), so a runner waits on several
/// collectors' answers at once; all share the one log object through `SerializedLog`. A part taken
/// is made anew, so what it reads of its files is what its last runner left.
final class PartitionedRun {
    private let log: any LogStore
    private let shared: SerializedLog
    private let timeout: Double
    private let interval: Double
    /// Every unit of work, in the order that assigns them, as the log's partition counts stand.
    private let units: (any CheckpointStore) throws -> [String]
    /// Builds the projector of one unit over the given log, with what its transports ask before
    /// each request; nil when the log's counts no longer name it (a tracker split meanwhile).
    private let make: (_ name: String, _ log: SerializedLog, _ holds: @escaping (String) -> Bool) throws -> (any Projector)?
    private let say: (String) -> Void
    private var slot: (name: String, lease: any ProjectorLease)?
    /// The storage projector, when this runner holds it: run on this thread.
    private var storage: (lease: any ProjectorLease, projector: any Projector)?
    private var parts: [String: PartWorker] = [:]
    /// The log's last position as this thread last read it: the parts' threads wait on it.
    private let head = ConditionBox(0)

    init(
        log: any LogStore, leaseTimeout: Double, units: @escaping (any CheckpointStore) throws -> [String],
        make: @escaping (_ name: String, _ log: SerializedLog, _ holds: @escaping (String) -> Bool) throws -> (any Projector)?,
        say: @escaping (String) -> Void
    ) {
        (self.log, self.timeout, self.units, self.make, self.say) = (log, leaseTimeout, units, make, say)
        shared = SerializedLog(log)
        interval = min(1, leaseTimeout / 3)
    }

    /// Follows the log until `shouldStop` (asked between rounds, holding the log: it may use it),
    /// looking at the runners every `interval` seconds. A lease lost (this process paused or cut
    /// off past the timeout) ends it with `FlowLogError.busy` (lost), having moved nothing more.
    func follow(shouldStop: () -> Bool) throws {
        defer { handOver(keeping: []) }
        var runner = ProjectionRunner(log: log)
        var nextLook = 0.0
        var storageNotBefore = 0.0
        runner.holdsLease = { [unowned self] _ in storage?.lease.holds ?? true }
        runner.endsCatchUpEarly = { MonotonicClock.seconds() >= nextLook }
        while !(shared.exclusively { shouldStop() }) {
            if let lost = lostLease() { throw FlowLogError.busy(ProjectorBusy(projector: lost, pid: nil, lost: true)) }
            if MonotonicClock.seconds() >= nextLook {
                try look()
                nextLook = MonotonicClock.seconds() + interval
            }
            var handled = 0
            if let storage, storageNotBefore <= MonotonicClock.seconds() {
                do {
                    handled = try shared.exclusively { try runner.catchUp(storage.projector) }
                } catch FlowLogError.busy(let busy) where busy.lost {
                    throw FlowLogError.busy(busy)
                } catch {
                    storageNotBefore = MonotonicClock.seconds() + 30
                }
            }
            let last = try shared.exclusively { try log.lastPosition() }
            head.withLock {
                $0 = last
                head.broadcast()
            }
            if handled == 0 { usleep(100_000) }
        }
    }

    /// The first lease this runner could not renew in time (a unit's, or its slot's), or a part
    /// whose thread met one.
    private func lostLease() -> String? {
        if let storage, !storage.lease.holds { return storage.projector.name }
        if let lost = parts.values.first(where: { $0.lostLease || !$0.holdsLease }) { return lost.name }
        if let slot, !slot.lease.holds { return slot.name }
        return nil
    }

    /// Counts the runners, and lets go of and takes units to match this runner's share. It holds
    /// the log's lock call by call, never while it stops a part's thread (which may be waiting for it).
    private func look() throws {
        let log = shared
        let names = try units(log)
        // One slot per unit (a runner without a unit only waits, as one without a slot does), and
        // never fewer than a tracker's most parts, so a repartition that lowers the count leaves
        // every runner its slot.
        let slots = (0..<max(names.count, ProjectorPartitioning.maximumCount)).map { "projections.runner-\($0 + 1)" }
        let held = try log.leaseHolders(of: slots)
        if slot == nil {
            for name in slots where held[name] == nil {
                guard let lease = try take(name) else { continue }
                slot = (name, lease)
                break
            }
        }
        guard let slot else { return handOver(keeping: []) }
        let live = slots.filter { held[$0] != nil || $0 == slot.name }
        let rank = live.firstIndex(of: slot.name)!
        // A tracker being repartitioned is nobody's until `projections repartition` is done.
        let draining = try Composition.trackerNames.filter { try ProjectorPartitioning.pendingCount(of: $0, in: log) != nil }
        let mine = Set(
            names.indices.filter { $0 % live.count == rank }.map { names[$0] }
                .filter { name in !draining.contains { ProjectorPartitioning.isPart(name, of: $0) } })
        handOver(keeping: mine)
        for name in names where mine.contains(name) && !isRunning(name) {
            guard let lease = try take(name) else { continue }
            let holds: (String) -> Bool = { _ in lease.holds }
            // Its lease is let go of at once; the next look reads the new names.
            guard let projector = try make(name, shared, holds) else { continue }
            if name == StorageProjector.projectorName {
                storage = (lease, projector)
            } else {
                parts[name] = PartWorker(projector: projector, lease: lease, log: shared, head: head)
            }
            say("took \(name)")
        }
    }

    private func isRunning(_ name: String) -> Bool {
        storage?.projector.name == name || parts[name] != nil
    }

    /// Lets go of every unit not in `mine`, each between two batches (its checkpoint written).
    private func handOver(keeping mine: Set<String>) {
        if let storage, !mine.contains(storage.projector.name) {
            say("handed over \(storage.projector.name)")
            self.storage = nil
        }
        for (name, worker) in parts where !mine.contains(name) {
            worker.stop()
            parts[name] = nil
            say("handed over \(name)")
        }
    }

    /// The lease of `name`, or nil while another process holds it.
    private func take(_ name: String) throws -> (any ProjectorLease)? {
        do {
            return try log.leaseProjector(name, expiringAfter: timeout)
        } catch FlowLogError.busy {
            return nil
        }
    }
}

/// One tracker part's thread: it catches its projector up, waits for the head to move past its
/// checkpoint, and goes on until stopped (between two batches) or until its lease is lost.
///
/// Unchecked `Sendable`: its projector, lease and runner are used by its thread alone once it has
/// started (the log through `SerializedLog`'s lock); `stop()` joins the thread before they are dropped.
private final class PartWorker: @unchecked Sendable {
    let name: String
    private let projector: any Projector
    private let lease: any ProjectorLease
    private let log: SerializedLog
    private let head: ConditionBox<Int>
    private let thread = WorkerThread()
    private let lost = ConditionBox(false)

    init(projector: any Projector, lease: any ProjectorLease, log: SerializedLog, head: ConditionBox<Int>) {
        (self.name, self.projector, self.lease, self.log, self.head) = (projector.name, projector, lease, log, head)
        thread.start(name: "flowlog-part") { [self] in run() }
    }

    /// Whether the thread stopped because its lease was lost.
    var lostLease: Bool { lost.withLock { $0 } }

    /// Whether its lease still holds (asked from the runner's thread: a lease answers from any).
    var holdsLease: Bool { lease.holds }

    func stop() { thread.stop() }

    private func run() {
        var runner = ProjectionRunner(log: log)
        runner.holdsLease = { [lease] _ in lease.holds }
        runner.endsCatchUpEarly = { [thread] in thread.isStopping }
        while !thread.isStopping {
            do {
                if try runner.catchUp(projector) == 0 {
                    let checkpoint = try projector.checkpoint()
                    head.withLock(waitingUntil: { $0 > checkpoint }, deadline: Date().addingTimeInterval(0.5)) { _ in }
                }
            } catch let pause as DeliveryPaused {
                thread.waitForStop(until: Date().addingTimeInterval(pause.seconds))
            } catch FlowLogError.busy(let busy) where busy.lost {
                lost.withLock { $0 = true }
                return
            } catch {
                // Recorded as the part's status by the runner; tried again later, as `follow` does.
                thread.waitForStop(until: Date().addingTimeInterval(30))
            }
        }
    }
}
