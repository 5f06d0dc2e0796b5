// Needs the `Network` trait: PostgreSQL and the HTTPS transport are built only with it.
#if Network
    import FlowDomain
    import FlowLogBasics
    import FlowLogPostgres
    import FlowLogStore
    import FlowLogTesting
    import Foundation
    import Testing

    /// An append applies the rules before taking the lock, to the head its log object's last append
    /// left and the versions its requests expect, and sends that only when the reads under the lock
    /// find exactly those inputs. Each test makes one input wrong and checks that the answer and the
    /// rows are those of the log as it is, not of the guess.
    @Suite("PostgreSQL: appends guessed before the lock")
    struct PostgresAppendGuessTests {
        private func request(_ stream: String, id: String? = nil, expected: Int?) -> AppendRequest {
            AppendRequest(
                stream: stream, expectedVersion: expected, commandId: id,
                events: [
                    NewEvent(
                        eventId: EventID(high: .random(in: 0...UInt64.max), low: .random(in: 0...UInt64.max)),
                        timestamp: Timestamp(microseconds: 1), actor: .user, event: .navigation(.modalPresented))
                ])
        }

        private func intact(_ log: PostgresEventLog) throws -> Bool {
            try log.checkIntegrity().problems.isEmpty
        }

        @Test func anotherWritersAppendMovesTheHeadAndTheGuessIsNotUsed() throws {
            // Given two log objects on one log, the first having appended (so it guesses its own head)
            let url = PostgresServer.shared.url()
            let first = try PostgresEventLog.open(url: url, access: .readWriteCreating)
            let second = try PostgresEventLog.open(url: url, access: .readWrite)
            #expect(try first.append([request("a", expected: 0)]) == [.appended(CommandReceipt(firstPosition: 1, eventCount: 1, version: 1))])
            // When the second appends, then the first again
            #expect(try second.append([request("b", expected: 0)]) == [.appended(CommandReceipt(firstPosition: 2, eventCount: 1, version: 1))])
            let results = try first.append([request("a", expected: 1), request("c", expected: 0)])
            // Then the first's events follow the second's, chained to it
            #expect(
                results == [
                    .appended(CommandReceipt(firstPosition: 3, eventCount: 1, version: 2)),
                    .appended(CommandReceipt(firstPosition: 4, eventCount: 1, version: 1)),
                ])
            #expect(try first.events().map(\.position) == [1, 2, 3, 4])
            #expect(try intact(first))
        }

        @Test func aStreamAtAnotherVersionThanExpectedIsAConflictEvenWithTheHeadAsGuessed() throws {
            // Given a log whose head is the one its object left, with stream a at version 1
            let log = try PostgresEventLog.open(url: PostgresServer.shared.url(), access: .readWriteCreating)
            _ = try log.append([request("a", expected: 0)])
            // When a request expects a at version 5 (the guess takes that for a's version)
            let results = try log.append([request("a", expected: 5), request("b", expected: 0)])
            // Then it is a conflict at version 1, and only b is written
            #expect(results == [.conflict(actualVersion: 1), .appended(CommandReceipt(firstPosition: 2, eventCount: 1, version: 1))])
            #expect(try log.version(of: "a") == 1)
            #expect(try intact(log))
        }

        @Test func aCommandIdStoredBeforeIsADuplicateEvenWithTheHeadAsGuessed() throws {
            // Given command c1 accepted in stream a
            let log = try PostgresEventLog.open(url: PostgresServer.shared.url(), access: .readWriteCreating)
            _ = try log.append([request("a", id: "c1", expected: 0)])
            // When c1 comes again, expecting a's current version (the guess knows no receipts)
            let results = try log.append([request("a", id: "c1", expected: 1)])
            // Then it is a duplicate of the first, and nothing is written
            #expect(results == [.duplicate(CommandReceipt(firstPosition: 1, eventCount: 1, version: 1))])
            #expect(try log.lastPosition() == 1)
        }
    }
#endif
