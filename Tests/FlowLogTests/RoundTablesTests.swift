import FlowDomain
import FlowLogStore
import Testing

@testable import FlowLog

/// The tables a round of the command processor finds its streams in without hashing their names
/// again: the streams it decides against (`WorkingStreams`), the states loaded ahead with their
/// marks by command (`LoadedAhead`), and the names the look-ahead met (`RecentNames`).
@Suite("A round's tables")
struct RoundTablesTests {
    private static func working(_ version: Int) -> CommandProcessor.WorkingStream {
        CommandProcessor.WorkingStream((FlowDecider.initialState, version), cached: false)
    }

    /// Past the room it was made with, the table grows and every stream is still found where it
    /// was added; one taken out is not found and not handed back; the others come back, last met
    /// first, each with the hash it came with.
    @Test func workingStreamsFindEveryStreamAddedAndHandBackTheHashes() {
        var streams = CommandProcessor.WorkingStreams(capacity: 2)
        let names = (0..<100).map { "session-\($0)" }
        for (number, name) in names.enumerated() {
            #expect(streams.position(of: name, hash: name.hashValue) == nil)
            #expect(streams.add(name, hash: name.hashValue, Self.working(number)) == number)
        }
        for (number, name) in names.enumerated() {
            #expect(streams.position(of: name, hash: name.hashValue) == number)
            #expect(streams[name]?.version == number)
        }
        streams.remove("session-7")
        #expect(streams.position(of: "session-7", hash: "session-7".hashValue) == nil)
        var drained: [(String, Int, Int)] = []
        streams.drain { name, hash, state in drained.append((name, hash, state.version)) }
        #expect(drained.map(\.0) == names.reversed().filter { $0 != "session-7" })
        #expect(drained.allSatisfy { $0.1 == $0.0.hashValue && "session-\($0.2)" == $0.0 })
        #expect(streams.position(of: "session-1", hash: "session-1".hashValue) == nil)
    }

    /// Two names with the same hash are told apart by the names themselves.
    @Test func workingStreamsTellApartNamesWithOneHash() {
        var streams = CommandProcessor.WorkingStreams(capacity: 4)
        _ = streams.add("a", hash: 42, Self.working(1))
        _ = streams.add("b", hash: 42, Self.working(2))
        #expect(streams.position(of: "a", hash: 42) == 0 && streams.position(of: "b", hash: 42) == 1)
        #expect(streams.position(of: "c", hash: 42) == nil)
    }

    /// A stream without events is marked at the command that names it first; the mark gives the
    /// initial state once, and only to that command. Batches put together keep each command's mark
    /// at its place, and a slice's marks that run past its own commands are not carried over.
    @Test func marksWithoutEventsFollowTheirCommandsWhenBatchesJoin() {
        var first = LoadedAhead()
        // A slice of 3 commands whose marks were made as long as its part (5 commands).
        first.markWithoutEvents(at: 1, commands: 5)
        var second = LoadedAhead()
        second.markWithoutEvents(at: 0, commands: 2)
        second.add((FlowDecider.initialState, 4), for: "known")
        var joined = LoadedAhead()
        joined.append(first, after: 0)
        joined.append(second, after: 3)
        #expect(joined.count == 3)
        #expect((0..<6).filter(joined.marksWithoutEvents(at:)) == [1, 3])
        #expect(joined.take("fresh", at: 2) == nil)
        #expect(joined.take("fresh", at: 3)?.version == 0)
        #expect(joined.take("fresh", at: 3) == nil)
        #expect(joined.take("known", at: 5)?.version == 4)
        #expect(joined.take("other", at: 1)?.version == 0)
        #expect(joined.isEmpty)
    }

    /// The names met are kept as hashes: each is new once within two generations.
    @Test func recentNamesKnowEachNameOnceAtScale() {
        var met = RecentNames(generation: 50_000)
        let names = (0..<50_000).map { "session-\($0)" }
        let first = names.map { met.insert($0) }
        let again = names.map { met.insert($0) }
        let another = met.insert("session-50000")
        #expect(!first.contains(false) && !again.contains(true) && another)
    }

    /// A name met keeps the number the look-ahead remembered for it (its page), through the next
    /// generation, and is forgotten with it after that.
    @Test func recentNamesKeepTheNumberRememberedForEachName() {
        var met = RecentNames(generation: 3)
        #expect(met.meet(hash: 1) == .new)
        met.remember(10, forHash: 1)
        #expect(met.meet(hash: 1) == .before(10))
        #expect(met.meet(hash: 2) == .new && met.meet(hash: 2) == .before(nil))
        // The third name ends the generation: the numbers go on with it
        #expect(met.meet(hash: 3) == .new)
        met.remember(.max, forHash: 3)
        #expect(met.meet(hash: 3) == .before(.max) && met.meet(hash: 1) == .before(10))
        for hash in 4...6 { #expect(met.meet(hash: hash) == .new) }
        #expect(met.meet(hash: 1) == .new, "two generations later")
    }
}
