import FlowDomain
import FlowLog
import FlowLogBasics
import FlowLogStore

/// The export line reader (`flowlog import`, `replay --file`): the input is one line of an NDJSON
/// export, from anywhere.
///
/// Its fast reader handles the layout the export writes and hands everything else to the general
/// one: when the fast reader returns an event, the general one returns the same. An event read is
/// what an import then stores, so it must also encode as a record (`RecordCodec`) without trapping
/// and read back from it unchanged, and written back as an export line it reads as the same event.
enum ExportLineTarget {
    static let target = FuzzTarget(
        name: "export-line",
        checks: "an export line: the fast and the general reader agree; an event read is stored as a record and exported again unchanged",
        run: run
    )

    @Sendable static func run(_ line: UnsafeRawBufferPointer) {
        let fast = ReadingPaths.exportLineCanonical(line)
        let general = ReadingPaths.exportLineGenerally(line)
        let decoded = Result { () throws(RecordedEventJSON.Problem) in try RecordedEventJSON.decode(line) }
        if let fast {
            fuzzCheck((try? general.get()) == fast, "the fast reader read \(fast), the general one \(general)")
        }
        guard case .success(let record) = decoded else { return }
        fuzzCheck((try? general.get()) == record, "decode read \(record), the general reader \(general)")
        let written = FlowJSON.event(record)
        var copy = written
        let again = copy.withUTF8 { bytes in try? RecordedEventJSON.decode(UnsafeRawBufferPointer(bytes)) }
        fuzzCheck(again == record, "\(record) exported as \(written) reads back as \(String(describing: again))")
        guard !record.isForgotten else { return }
        StoredRecords.checkRoundTrip(record)
        // Decode then fold: the event folds into a new stream's state, which a head then keeps.
        StateChecks.checkRoundTrip(FlowDecider.evolve(FlowDecider.initialState, record.event))
    }
}

extension RecordedEvent {
    /// The record as `layout` keeps it: only the traced layout keeps a trace context.
    func kept(in layout: RecordLayout) -> RecordedEvent {
        var kept = self
        if layout != .traced { kept.traceContext = nil }
        return kept
    }
}

/// What an import does with an event it read: encode it as a record, which must read back the same.
enum StoredRecords {
    static func checkRoundTrip(_ record: RecordedEvent) {
        for layout in [RecordLayout.whole, .salted, .traced] {
            var writer = BinaryWriter()
            let previous: UInt64 = 0x5EED
            _ = RecordCodec.encode(record, previousHash: previous, layout: layout, salts: &FuzzSalts.supply, into: &writer)
            let read = writer.withUnsafeBytes { bytes in
                Result { () throws(RecordDamage) in try RecordCodec.decode(bytes, expectedPosition: record.position, previousHash: previous).0 }
            }
            fuzzCheck(read == .success(record.kept(in: layout)), "\(record) stored in layout \(layout.rawValue) reads back as \(read)")
        }
    }
}
