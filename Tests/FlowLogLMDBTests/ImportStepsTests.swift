import FlowLogTesting
import Testing

@testable import FlowLogLMDB
@testable import LMDB

/// `ImportSteps` bounds the pages an import's transaction changes: LMDB holds them in memory until
/// the commit, and keeps the largest step's for reuse until the log closes.
@Suite("Import steps")
struct ImportStepsTests {
    private func withSteps(pagesPerStep: Int, _ body: (ImportSteps, TransactionSteps) throws -> Void) throws {
        let folder = TemporaryDirectory()
        let environment = try Environment(path: folder.path)
        try environment.writeInSteps { steps in
            try body(ImportSteps(steps, pagesPerStep: pagesPerStep), steps)
        }
    }

    @Test func aStepCommitsBeforeAWriteItCouldNotHold() throws {
        try withSteps(pagesPerStep: 10) { importSteps, steps in
            try importSteps.willWrite(pages: 6)
            #expect(steps.committedSteps == 0)
            try importSteps.willWrite(pages: 4)
            #expect(steps.committedSteps == 0, "a write that fills the step exactly still fits")
            try importSteps.willWrite(pages: 1)
            #expect(steps.committedSteps == 1, "the full step committed before the next write")
            try importSteps.willWrite(pages: 9)
            #expect(steps.committedSteps == 1)
        }
    }

    @Test func aWriteLargerThanAStepHasOneOfItsOwn() throws {
        try withSteps(pagesPerStep: 10) { importSteps, steps in
            try importSteps.willWrite(pages: 25)
            #expect(steps.committedSteps == 0, "an empty step takes a write of any size")
            try importSteps.willWrite(pages: 1)
            #expect(steps.committedSteps == 1)
        }
    }

    @Test func pagesCountedAfterAWriteCommitOnceTheStepIsFull() throws {
        try withSteps(pagesPerStep: 10) { importSteps, steps in
            try importSteps.willWrite(pages: 4)
            try importSteps.wrote(pages: 5)
            #expect(steps.committedSteps == 0)
            try importSteps.wrote(pages: 1)
            #expect(steps.committedSteps == 1)
            try importSteps.willWrite(pages: 10)
            #expect(steps.committedSteps == 1, "the next step starts empty")
        }
    }
}
