import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Foundation
import LMDB
import Testing

@testable import FlowLog
@testable import FlowLogLMDB

/// A record of a kind version this build does not know (as a later FlowLog would write it): the log
/// is not damaged, and every reader says "upgrade FlowLog", never "damaged".
@Suite("A kind version newer than known")
struct NewerKindVersionTests {
    @Test func verifyListsItAsNewerAndReadsStopWithUpgradeFlowLog() throws {
        let folder = TemporaryDirectory()
        let log = try LMDBEventLog(path: folder.child("log"))
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        for command: AppCommand in [
            .cart(.addProduct(.init(productId: "p1", name: nil, unitPrice: 100, quantity: 1))),
            .cart(.applyDiscount(.init(discountId: "D", percent: 10, productId: nil))),
        ] {
            _ = try processor.handle(CommandEnvelope(stream: "s", command: command))
        }
        // The last record, as a FlowLog that knows cart.discountApplied version 3 would write it.
        try log.environment.write { txn in
            var bytes = Array(try txn.get(log.eventsDB, key: Keys.position(2))!)
            bytes[3] = UInt8(2 << 4)
            let previous = try log.hashBefore(position: 2, txn)
            let body = bytes.count - RecordCodec.trailerSize
            // A new log's records are salted, and chained whole, seeded with the position too.
            #expect(bytes[0] == RecordLayout.salted.rawValue)
            let hash = XXHash64.hash(Array(bytes[0..<body]), seed: RecordCodec.seed(previous, position: 2))
            withUnsafeBytes(of: hash.littleEndian) { bytes.replaceSubrange(body..., with: $0) }
            try txn.put(log.eventsDB, key: Keys.position(2), value: bytes)
        }
        let report = try log.checkIntegrity()
        #expect(report.isIntact, "not damage: \(report.problems)")
        #expect(!report.isReadable)
        #expect(report.newer.map(\.position) == [2])
        #expect(report.newer.first?.detail.contains("cart.discountApplied version 3") == true)
        do {
            _ = try log.events()
            Issue.record("a version 3 record was read")
        } catch let error as FlowLogError {
            #expect(error.description.contains("newer FlowLog") && error.description.contains("upgrade FlowLog"), "\(error)")
            #expect(!error.description.contains("damaged"))
        }
    }
}
