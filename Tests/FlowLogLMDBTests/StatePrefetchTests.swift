import Deciding
import FlowDomain
import FlowLogBasics
import FlowLogLMDB
import FlowLogStore
import FlowLogTesting
import Foundation
import LMDB
import Testing

@testable import FlowLog

/// `send`'s reading thread loads the states of the streams it meets first while the writer
/// decides and commits (`StatePrefetcher`, `StatePrefetching`): each stream once, slim where the
/// cache would slim it, and the answers are those of a processor that loads every state itself,
/// even when another writer moves a stream after its state was read.
@Suite("States loaded ahead")
struct StatePrefetchTests {
    private static func add(_ stream: String, _ product: String, price: Int = 500) -> CommandEnvelope {
        CommandEnvelope(stream: stream, command: .cart(.addProduct(.init(productId: product, name: nil, unitPrice: price, quantity: 1))))
    }

    private static func order(_ id: String, stream: String) -> [CommandEnvelope] {
        [add(stream, "p-\(id)"), CommandEnvelope(stream: stream, command: .cart(.checkout)), pay(id, stream: stream)]
    }

    private static func pay(_ id: String, stream: String) -> CommandEnvelope {
        CommandEnvelope(stream: stream, command: .payment(.succeeded(.init(orderId: id))))
    }

    /// A log whose streams each placed `orders` orders, more than the cache keeps whole.
    private static func grownLog(at path: String, streams: [String], orders: Int = 20) throws -> LMDBEventLog {
        let log = try LMDBEventLog(path: path)
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator(startingAfter: 1 << 40))
        for stream in streams {
            _ = try processor.handle((1...orders).flatMap { order("o\($0)", stream: stream) })
        }
        return log
    }

    @Test func eachStreamIsLoadedOnceAndSlimUnlessACommandOfTheReadNeedsItsRows() throws {
        let folder = TemporaryDirectory()
        let log = try Self.grownLog(at: folder.child("log"), streams: ["s1", "s2", "s3"])
        let prefetcher = try #require(StatePrefetcher(log: log))
        // s2 pays for an order id that one of its dropped orders had: its state stays whole.
        let read =
            (1...4).map { Self.add("s1", "p\($0)") } + (1...4).map { Self.add("s2", "p\($0)") } + [Self.pay("o3", stream: "s2")]
            + (1...4).map { Self.add("s3", "p\($0)") } + [Self.pay("o99", stream: "s3")]
        let states = prefetcher.states(for: read)
        #expect(states.count == 3)
        #expect(states["s1"]?.version == 60)
        #expect(states["s1"]?.state.orders.count == 20)
        #expect(states["s1"]?.state.orders.orders.map(\.orderId) == ["o20"])
        #expect(states["s2"]?.state.orders.orders.count == 20)
        // A new order id is ruled out by the dropped orders' id hashes: slim.
        #expect(states["s3"]?.state.orders.orders.count == 1)
        #expect(states["s3"]?.state.orders.mayHaveDropped(orderId: "o3") == true)
        // Met before: the processor keeps or loads them from now on.
        // s4, which has no events, is marked at the command that names it first.
        let later = prefetcher.states(for: [Self.add("s1", "p9")] + (1...4).map { Self.add("s4", "p\($0)") })
        #expect(later.count == 1 && later["s1"] == nil && later.marksWithoutEvents(at: 1))
    }

    /// `streams` with one order each, written in one commit (a grown log of many small sessions).
    private static func manyStreamsLog(at path: String, streams: [String]) throws -> LMDBEventLog {
        let log = try LMDBEventLog(path: path)
        _ = try CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator(startingAfter: 1 << 40))
            .handle(streams.flatMap { order("o1", stream: $0) })
        return log
    }

    /// A read meeting more streams for the first time than a slice loads is cut into slices, in
    /// order, each with the states of the streams it meets first; no line is lost or moved.
    @Test func aReadMeetingMoreStreamsThanTheCapIsCutIntoSlices() throws {
        let folder = TemporaryDirectory()
        let streams = (1...(StatePrefetcher.statesPerSlice + 6)).map { "s\($0)" }
        let log = try Self.manyStreamsLog(at: folder.child("log"), streams: streams)
        let prefetcher = try #require(StatePrefetcher(log: log))
        var read = SendSession.ParsedBatch()
        for stream in streams {
            for product in 1...2 {
                read.envelopes.append(Self.add(stream, "p\(product)"))
                read.lineRejections.append(nil)
            }
            read.lineRejections.append(WireRejection(stream: stream, rejection: Rejection(.malformedCommand, "a line between")))
        }
        let slices = prefetcher.slices(of: read)
        #expect(slices.map(\.states.count) == [StatePrefetcher.statesPerSlice, 6])
        #expect(slices.map(\.batch.envelopes.count) == [2 * StatePrefetcher.statesPerSlice, 12])
        #expect(slices[1].batch.envelopes.first?.stream == "s\(StatePrefetcher.statesPerSlice + 1)")
        #expect(slices.flatMap(\.batch.envelopes) == read.envelopes)
        #expect(slices.flatMap(\.batch.lineRejections) == read.lineRejections)
        // A part's lines answer its envelopes and the rejected lines among them.
        for slice in slices { #expect(slice.batch.lineRejections.filter { $0 == nil }.count == slice.batch.envelopes.count) }
        #expect(slices[0].states["s1"]?.version == 3 && slices[1].states["s\(streams.count)"]?.version == 3)
        // Met now: never loaded ahead again.
        #expect(prefetcher.states(for: streams.map { Self.add($0, "p9") }).isEmpty)
    }

    /// Streams without events cost a slice nothing: a read of new sessions beside a few grown ones
    /// goes on whole, with the states of all of them.
    @Test func aReadOfNewStreamsIsNotCut() throws {
        let folder = TemporaryDirectory()
        let log = try Self.manyStreamsLog(at: folder.child("log"), streams: ["s1", "s2"])
        let prefetcher = try #require(StatePrefetcher(log: log))
        let streams = ["s1"] + (1...(2 * StatePrefetcher.statesPerSlice + 3)).map { "new\($0)" } + ["s2"]
        var read = SendSession.ParsedBatch()
        read.envelopes = streams.map { Self.add($0, "p1") }
        read.lineRejections = streams.map { _ in nil }
        let slices = prefetcher.slices(of: read)
        #expect(slices.count == 1)
        #expect(slices.first?.batch.envelopes == read.envelopes)
        #expect(slices.first?.states.count == streams.count)
        // "new7" is the eighth command's stream: that command takes the initial state, once.
        var states = try #require(slices.first?.states)
        #expect(states["s2"]?.version == 3 && states["new7"] == nil && states.marksWithoutEvents(at: 7))
        #expect(states.take("new7", at: 7)?.version == 0 && states.take("new7", at: 7) == nil)
        #expect(states.take("new7", at: 0) == nil)
    }

    /// A commit takes many reads: a state slimmed for its own read meets, in a later one, a payment
    /// for an order id its dropped orders held, and is loaded whole again.
    @Test func aSlimStateLoadedAheadIsNotDecidedAgainstForAPaymentOfADroppedOrder() throws {
        let folder = TemporaryDirectory()
        let log = try Self.grownLog(at: folder.child("log"), streams: ["s1"])
        let states = try #require(StatePrefetcher(log: log)).states(for: (1...4).map { Self.add("s1", "p\($0)") })
        #expect(states["s1"]?.state.orders.orders.count == 1)
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        let outcomes = try processor.handle(Self.order("o3", stream: "s1"), fieldsChecked: false, prefetched: states)
        guard case .rejected(_, let rejection) = outcomes[2] else {
            Issue.record("\(outcomes[2])")
            return
        }
        #expect(rejection.code == .duplicateOrder)
    }

    /// A state read slim (the latest row made, the others hashed from their bytes) is the whole
    /// state slimmed as the cache slims it, wherever the rows lie: row pages, the row index, batch
    /// records not folded yet; in another currency too (its rows carry a currency mark).
    @Test func aStateReadSlimIsTheWholeStateSlimmed() throws {
        let folder = TemporaryDirectory()
        // Folds every four commits, so that rows reach the index and its pages, and some stay pending.
        let log = try LMDBEventLog(path: folder.child("log"), foldPolicy: FoldPolicy(events: 1_000, records: 4))
        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        let orders = ["short": 5, "mid": 20, "long": 1_030, "euro": 40]
        for (stream, count) in orders {
            let commands = (1...count).flatMap { number in
                [
                    CommandEnvelope(
                        stream: stream,
                        command: .cart(
                            .addProduct(
                                .init(
                                    productId: "p\(number)", name: nil, unitPrice: 500, quantity: 1,
                                    currency: stream == "euro" ? "EUR" : nil)))),
                    CommandEnvelope(stream: stream, command: .cart(.checkout)), Self.pay("order-\(stream)-\(number)", stream: stream),
                ]
            }
            for start in stride(from: 0, to: commands.count, by: 300) {
                _ = try processor.handle(Array(commands[start..<min(start + 300, commands.count)]))
            }
        }
        let streams = Array(orders.keys)
        let slim = try log.committedStates(ofStreams: streams, slimmingPast: FlowDecider.rowsKeptWhole)
        let whole = try log.committedStates(ofStreams: streams, slimmingPast: nil)
        for (index, stream) in streams.enumerated() {
            var expected = whole[index].state.value
            #expect(expected.orders.orders.count == orders[stream])
            var read = slim[index].state.value
            // A head of more than 16 rows comes slim (mid's may hold 16 or fewer), with the rows of
            // the events after it whole: the look-ahead slims them, as the cache would.
            if orders[stream]! >= 40 { #expect(!FlowDecider.holdsAllKeptRows(read), "\(stream)") }
            if orders[stream]! > FlowDecider.rowsKeptWhole {
                FlowDecider.slimForCache(&expected)
                FlowDecider.slimForCache(&read)
            }
            #expect(slim[index].version == whole[index].version)
            #expect(read == expected, "\(stream)")
            #expect(read.orders.orders == expected.orders.orders && read.orders.count == orders[stream])
            for number in 1...orders[stream]! {
                #expect(read.orders.mayHaveDropped(orderId: "order-\(stream)-\(number)") == (number < orders[stream]! && orders[stream]! > 16))
            }
            #expect(!read.orders.mayHaveDropped(orderId: "order-\(stream)-0"))
        }
    }

    /// One command per new stream (one command per session in turn) is loaded ahead too.
    @Test func oneCommandPerNewStreamIsLoadedAheadOnce() throws {
        let folder = TemporaryDirectory()
        let log = try Self.grownLog(at: folder.child("log"), streams: ["s1", "s2"], orders: 1)
        let prefetcher = try #require(StatePrefetcher(log: log))
        let states = prefetcher.states(for: [Self.add("s1", "p1"), Self.add("s2", "p1")])
        #expect(states.count == 2 && states["s1"]?.version == 3 && states["s2"]?.version == 3)
        // Once this process may have written them, they are never loaded ahead.
        #expect(prefetcher.states(for: (1...8).map { Self.add("s1", "p\($0)") }).isEmpty)
    }

    @Test func aLogThatCannotBeReadBesideItsWriterGetsNoLookAhead() {
        #expect(StatePrefetcher(log: ForwardingEventLog()) == nil)
    }

    /// Sessions' visits to a grown log: products, a price that differs from the cart's, an order
    /// whose id repeats a dropped one (every third session) or is new.
    private static func visits(_ streams: [String]) -> [CommandEnvelope] {
        streams.enumerated().flatMap { number, stream in
            (1...4).map { add(stream, "p\($0)") } + [add(stream, "p1", price: 999)]
                + order("o\(number % 3 == 0 ? 2 : 30 + number)", stream: stream)
        }
    }

    /// The same reads, with and without states loaded ahead, on two logs grown alike: the same
    /// answers, duplicates and rejections among them, and the same events.
    @Test func batchesWithStatesLoadedAheadAnswerAsTheProcessorAlone() throws {
        let folder = TemporaryDirectory()
        let streams = (1...12).map { "s\($0)" }
        let ahead = try Self.grownLog(at: folder.child("ahead"), streams: streams)
        let alone = try Self.grownLog(at: folder.child("alone"), streams: streams)
        let prefetcher = try #require(StatePrefetcher(log: ahead))
        let withLookAhead = CommandProcessor(log: ahead, clock: SteppingClock(), ids: SequentialIDGenerator())
        let processor = CommandProcessor(log: alone, clock: SteppingClock(), ids: SequentialIDGenerator())
        var loadedAhead = 0
        var answers: [CommandOutcome] = []
        var expected: [CommandOutcome] = []
        let envelopes = Self.visits(streams)
        for start in stride(from: 0, to: envelopes.count, by: 20) {
            let batch = Array(envelopes[start..<min(start + 20, envelopes.count)])
            let states = prefetcher.states(for: batch)
            loadedAhead += states.count
            answers += try withLookAhead.handle(batch, fieldsChecked: false, prefetched: states)
            expected += try processor.handle(batch)
        }
        #expect(loadedAhead == 12)
        #expect(answers == expected)
        let codes = expected.compactMap { outcome -> RejectionCode? in
            if case .rejected(_, let rejection) = outcome { return rejection.code } else { return nil }
        }
        #expect(Set(codes) == [.duplicateOrder, .priceMismatch])
        #expect(try ahead.eventSummaries() == alone.eventSummaries())
    }

    /// `send` of `envelopes` into `ahead`, reading on its own thread (reads of `chunkSize` bytes),
    /// answers as a processor alone answers them one by one on `alone`, a log grown alike, and
    /// leaves the same events; returns the answers.
    private static func sendAnswersAsTheProcessorAlone(
        _ envelopes: [CommandEnvelope], ahead: LMDBEventLog, alone: LMDBEventLog,
        chunkSize: Int = 1 << 20, in folder: TemporaryDirectory
    ) throws -> [String] {
        let input = folder.child("in.ndjson")
        try envelopes.map { WireCommand.encode($0) }.joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let descriptor = open(input, O_RDONLY)
        defer { close(descriptor) }
        let output = BufferOutput()
        _ = try SendSession(processor: CommandProcessor(log: ahead, clock: SteppingClock(), ids: SequentialIDGenerator()), output: output)
            .run(reader: LineReader(fileDescriptor: descriptor, chunkSize: chunkSize))
        let processor = CommandProcessor(log: alone, clock: SteppingClock(), ids: SequentialIDGenerator())
        let expected = try envelopes.map { FlowJSON.answer(try processor.handle($0)) }
        #expect(output.text.split(separator: "\n").map(String.init) == expected)
        #expect(try ahead.eventSummaries() == alone.eventSummaries())
        return expected
    }

    /// `send` itself, reading ahead on its own thread: the answers of the processor alone.
    @Test func aSendIntoAGrownLogAnswersAsTheProcessorAlone() throws {
        let folder = TemporaryDirectory()
        let streams = (1...12).map { "s\($0)" }
        // Reads of about 20 lines: the streams are met over many of them.
        _ = try Self.sendAnswersAsTheProcessorAlone(
            Self.visits(streams), ahead: try Self.grownLog(at: folder.child("ahead"), streams: streams),
            alone: try Self.grownLog(at: folder.child("alone"), streams: streams),
            chunkSize: 2_048, in: folder)
    }

    /// `send` of one command per session in turn over more sessions than a slice loads: the
    /// first round's states come ahead, slice by slice, and the answers are the processor's alone.
    @Test func aSendOfOneCommandPerSessionInTurnAnswersAsTheProcessorAlone() throws {
        let folder = TemporaryDirectory()
        let streams = (1...(StatePrefetcher.statesPerSlice + 100)).map { "s\($0)" }
        // Two rounds: a product, then a payment, refused (no checkout is in progress).
        let envelopes = streams.map { Self.add($0, "p2") } + streams.map { Self.pay("o2", stream: $0) }
        let answers = try Self.sendAnswersAsTheProcessorAlone(
            envelopes, ahead: try Self.manyStreamsLog(at: folder.child("ahead"), streams: streams),
            alone: try Self.manyStreamsLog(at: folder.child("alone"), streams: streams), in: folder)
        #expect(answers.last?.contains("noCheckoutInProgress") == true, "\(answers.last ?? "")")
    }

    @Test func aStreamAnotherWriterMovedAfterItsStateWasReadIsDecidedAgainstTheLog() throws {
        let folder = TemporaryDirectory()
        let log = try Self.grownLog(at: folder.child("log"), streams: ["s1"], orders: 2)
        let states = try #require(StatePrefetcher(log: log)).states(for: [Self.add("s1", "p9")])
        // Another writer adds p9 at another price after the state was read.
        _ = try CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator(startingAfter: 1 << 20)).handle(
            Self.add("s1", "p9", price: 700))

        let processor = CommandProcessor(log: log, clock: SteppingClock(), ids: SequentialIDGenerator())
        // Rejected against the log's state (p9 is in the cart at 700), accepted against the old one.
        let outcomes = try processor.handle([Self.add("s1", "p9"), Self.add("s1", "p10")], fieldsChecked: false, prefetched: states)
        guard case .rejected(_, let rejection) = outcomes[0] else {
            Issue.record("\(outcomes[0])")
            return
        }
        #expect(rejection.code == .priceMismatch)
        guard case .accepted(let acceptance) = outcomes[1] else {
            Issue.record("\(outcomes[1])")
            return
        }
        #expect(acceptance.receipt.firstPosition == 8)
        #expect(try log.version(of: "s1") == 8)
    }

    /// The streams met are remembered for two generations, not for ever: a million new sessions
    /// would otherwise leave a million names behind. A stream met again after that is new again.
    @Test func theStreamsMetAreForgottenAfterTwoGenerations() {
        var met = RecentNames(generation: 3)
        #expect(["a", "b", "a"].map { met.insert($0) } == [true, true, false])
        // "c" fills the first generation; "a" is still known from it.
        #expect(met.insert("c") && !met.insert("a"))
        #expect(["d", "e", "f"].map { met.insert($0) } == [true, true, true])
        // The second generation is full: the first is gone, the second stays.
        #expect(met.insert("a") && !met.insert("e"))
    }

    /// A resize of the map waits for a read beside the writer (`RemapLock`): the read would
    /// otherwise go on in memory the resize unmapped.
    @Test func aResizeOfTheMapWaitsForAReadBesideTheWriter() throws {
        let folder = TemporaryDirectory()
        let environment = try Environment(path: folder.path, options: Environment.Options())
        let reading = DispatchSemaphore(value: 0)
        let notes = Notes()
        nonisolated(unsafe) let shared = environment
        let reader = Thread {
            try? shared.readBesideWriter { _ in
                reading.signal()
                usleep(200_000)
                notes.note("read")
            }
        }
        reader.start()
        reading.wait()
        try environment.ensureMapSize(atLeast: environment.mapSize * 2)
        notes.note("resized")
        #expect(notes.notes == ["read", "resized"])
    }

    private final class Notes: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var notes: [String] = []
        func note(_ note: String) { lock.withLock { notes.append(note) } }
    }
}

extension StatePrefetcher {
    /// The states loaded ahead for a read of `envelopes`, over all its slices.
    fileprivate func states(for envelopes: [CommandEnvelope]) -> LoadedAhead {
        var read = SendSession.ParsedBatch()
        read.envelopes = envelopes
        read.lineRejections = envelopes.map { _ in nil }
        var states = LoadedAhead()
        var commands = 0
        for slice in slices(of: read) {
            states.append(slice.states, after: commands)
            commands += slice.batch.envelopes.count
        }
        return states
    }
}
