import Deciding
import FlowDomain
import FlowLogBasics
import FlowLogStore
import FlowLogTesting
import Testing

@testable import FlowLog
@testable import FlowLogHistory

/// Every declared kind, with random field values, through every codec: a new kind is covered the
/// moment it is declared, and no codec can drop one of its fields.
@Suite("Every kind through every codec")
struct EveryKindCodecTests {
    private func samples() -> [RecordedEvent] {
        var rng = SplitMix64(seed: 11)
        let events = RandomEvents()
        var records: [RecordedEvent] = []
        for info in EventKinds.all {
            for _ in 0..<25 {
                let position = records.count + 1
                records.append(
                    RecordedEvent(
                        position: position, stream: "s", version: position, eventId: EventID(high: 7, low: UInt64(position)),
                        timestamp: Timestamp(microseconds: 1_790_000_000_000_000 + Int64(position)), actor: .user,
                        event: events.event(of: info.kind, using: &rng)))
            }
        }
        return records
    }

    @Test func theBinaryRecordKeepsEveryField() throws {
        var writer = BinaryWriter()
        var previous = RecordCodec.genesisHash
        for record in samples() {
            let hash = RecordCodec.encode(record, previousHash: previous, into: &writer)
            let decoded = try writer.bytes.withUnsafeBytes { try RecordCodec.decode($0, expectedPosition: record.position, previousHash: previous) }
            #expect(decoded.0 == record)
            #expect(decoded.hash == hash)
            previous = hash
        }
    }

    /// Text and identifiers the exporter writes are read back exactly by the reader that takes any
    /// layout; the one that matches the export's layout reads the same or leaves the line to it
    /// (it gives up on values such as `Int.min`).
    @Test func theNDJSONExportReadsBackByBothReaders() throws {
        var readFast = Set<AppEvent.Kind>()
        for record in samples() {
            let line = Array(FlowJSON.event(record).utf8)
            let canonical = line.withUnsafeBytes { RecordedEventJSON.canonical($0) }
            let general = try line.withUnsafeBytes { try RecordedEventJSON.general($0) }
            #expect(general == record, "\(FlowJSON.event(record))")
            #expect(canonical == nil || canonical == record)
            if canonical != nil { readFast.insert(record.event.kind) }
        }
        #expect(readFast.count == EventKinds.all.count)
    }

    @Test func theDataObjectHasEveryDeclaredFieldInOrder() throws {
        for record in samples() {
            var json = JSONWriter()
            FlowJSON.writeEventData(record.event, into: &json)
            guard case .object(let members) = try JSONParser.parse(json.text) else {
                Issue.record("not an object")
                continue
            }
            #expect(members.map(\.0) == record.event.declarationFields.map(\.field.nameText))
        }
    }

    @Test func theCSVRowFillsTheColumnsItsFieldsDeclare() throws {
        let header = CSVSchema.columns.map(\.name)
        for record in samples() {
            var row = CSVRowWriter(capacity: 256)
            row.write(record)
            let cells = try csvCells(row.bytes)
            #expect(cells.count == header.count)
            let filled = Set(
                zip(header, cells).dropFirst(CSVSchema.columns.count - EventKinds.columns.count).filter { !$0.1.isEmpty || $0.1 == "\"\"" }.map(\.0))
            let fields = record.event.declarationFields
            let expected = Set(fields.compactMap { $0.field.column?.name.description })
            let required = Set(fields.filter { !$0.optional }.compactMap { $0.field.column?.name.description })
            #expect(required.isSubset(of: filled), "\(record.event.typeName): \(required) ⊄ \(filled)")
            #expect(filled.isSubset(of: expected), "\(record.event.typeName): \(filled) ⊄ \(expected)")
        }
    }

    @Test func everyCommandKindSurvivesTheWireForm() throws {
        var rng = SplitMix64(seed: 5)
        let commands = RandomCommands()
        var seen = Set<AppCommand.Kind>()
        for _ in 0..<2_000 {
            let envelope = CommandEnvelope(
                stream: "s1", commandId: "id-1", expectedVersion: 3, correlationId: "c", command: commands.command(using: &rng))
            seen.insert(envelope.command.kind)
            #expect(try WireCommand.decode(WireCommand.encode(envelope)).get() == envelope)
        }
        #expect(seen.count == CommandKinds.all.count)
    }

    /// Quoted CSV cells, split on the commas between them (RFC 4180, LF line end).
    private func csvCells(_ bytes: [UInt8]) throws -> [String] {
        var cells: [String] = []
        var cell: [UInt8] = []
        var quoted = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") {
                        cell.append(byte)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    cell.append(byte)
                }
            } else if byte == UInt8(ascii: "\"") {
                quoted = true
                if cell.isEmpty, index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") {
                    cell = Array("\"\"".utf8)
                    index += 1
                    quoted = false
                }
            } else if byte == UInt8(ascii: ",") || byte == 0x0A {
                cells.append(String(decoding: cell, as: UTF8.self))
                cell = []
            } else {
                cell.append(byte)
            }
            index += 1
        }
        return cells
    }
}

extension AppEvent {
    /// The declared fields of the event's kind.
    var declarationFields: [FieldDescription] { EventKinds.info(kind).fields }
}

/// The export's fast line writer and the writer that takes any event agree byte for byte, and
/// text that needs escaping or does not fit goes to the second.
@Suite("Event lines")
struct EventLineTests {
    @Test func theFastLineIsTheSameAsTheGeneralOne() {
        var rng = SplitMix64(seed: 12)
        let events = RandomEvents()
        var fast = 0
        for position in 1...3_000 {
            var record = sampleRecord(
                events.event(using: &rng), position: position, correlation: position % 3 == 0 ? nil : "c-\(position)",
                causation: position % 2 == 0 ? "cmd.\(position)" : nil)
            record.timestamp = Timestamp(microseconds: Int64(rng.next() % 4_000_000_000_000_000) - 1_000_000_000_000_000)
            record.eventId = EventID(high: rng.next(), low: rng.next())
            if position % 2 == 0 { record.timestamp = Timestamp(microseconds: Int64(rng.next() % 253_402_300_800_000_000)) }
            var line = JSONWriter()
            var general = JSONWriter()
            FlowJSON.writeEvent(record, into: &line)
            FlowJSON.writeEventByFragments(record, into: &general)
            #expect(line.text == general.text)
            if EventLine.append(record, to: &general) { fast += 1 }
        }
        #expect(fast > 1_500)
    }
}
