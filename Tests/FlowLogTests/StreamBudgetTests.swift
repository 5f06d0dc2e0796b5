import FlowLog
import Testing

/// Where `send` and the server's writer end a commit: before the commands that would name more
/// streams than the limit.
@Suite("stream budgets")
struct StreamBudgetTests {
    @Test func streamsAreCountedOnceAndTheOneThatWouldPassTheLimitIsRefused() {
        // Given a budget of three streams
        var budget = StreamBudget(limit: 3)
        // When streams come one by one, some again
        let answers = ["a", "b", "a", "c", "d", "b"].map { budget.admits($0) }
        // Then a fourth is refused and not counted, while one already counted still fits
        #expect(answers == [true, true, true, true, false, true])
        #expect(budget.count == 3)
        // And after a reset the budget starts again
        budget.reset()
        let again = budget.admits("d")
        #expect(again)
        #expect(budget.count == 1)
    }

    @Test func aRequestFitsWholeOrNotAtAllAndTheFirstAlwaysFits() {
        // Given a first request naming more streams than the limit: a commit takes at least one
        var budget = StreamBudget(limit: 3)
        let first = budget.admits(["a", "b", "c", "d", "a"])
        #expect(first)
        #expect(budget.count == 4)
        // When a later one would add any stream, it is refused and nothing of it is counted;
        // one naming only counted streams still fits
        let later = [["a", "e"], ["d", "a"]].map { budget.admits($0) }
        #expect(later == [false, true])
        #expect(budget.count == 4)
        // And within the limit, requests fit until one would pass it
        budget.reset()
        let requests = [["a", "b"], ["c", "d"], ["c", "a"]].map { budget.admits($0) }
        #expect(requests == [true, false, true])
        #expect(budget.count == 3)
    }
}
