import FlowLogBasics
import FlowLogSystem
import FlowLogTesting
import Foundation
import Testing

/// Graceful shutdown: SIGTERM while writers send commands; every answered command is in the log,
/// the process exits 0 and the log verifies.
@Suite("serve: graceful shutdown")
struct ServerLifecycleTests {
    private final class Answers: @unchecked Sendable {
        let lock = NSLock()
        var positions: [Int] = []
        var failures = 0
        /// Set once the server has exited: the writers send through the whole shutdown, and
        /// anything sent after it could only be refused.
        var serverExited = false

        var writersDone: Bool {
            lock.lock()
            defer { lock.unlock() }
            return serverExited
        }
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func commandsInFlightAreCommittedAndAnswered(signal: Int32) throws {
        let server = try ServedLog()
        let answers = Answers()
        // The signal comes once 50 commands are answered (or after 20 s), while the writers keep sending.
        let deadline = Date().addingTimeInterval(20)
        let group = DispatchGroup()
        for writer in 0..<8 {
            DispatchQueue.global().async(group: group) {
                var index = 0
                while true {
                    index += 1
                    let command = #"{"type":"cart.addProduct","stream":"w\#(writer)","productId":"p\#(index % 90)","unitPrice":100,"quantity":1}"#
                    guard let answer = try? server.post("/commands", json: command) else {
                        answers.lock.lock()
                        answers.failures += 1
                        answers.lock.unlock()
                        if answers.writersDone { return }
                        continue
                    }
                    if answer.status == 200, case .array(let positions)? = answer.json["positions"] {
                        answers.lock.lock()
                        answers.positions += positions.compactMap { if case .integer(let p) = $0 { p } else { nil } }
                        answers.lock.unlock()
                    } else if answer.status != 503 {
                        Issue.record("unexpected answer \(answer.status): \(answer.text)")
                    }
                    if answers.writersDone { return }
                }
            }
        }
        while Date() < deadline {
            answers.lock.lock()
            let answered = answers.positions.count
            answers.lock.unlock()
            if answered >= 50 { break }
            usleep(10_000)
        }
        let status = server.stop(signal)
        answers.lock.lock()
        answers.serverExited = true
        answers.lock.unlock()
        #expect(status == 0, "\(server.stderr.suffix(2000))")
        group.wait()
        #expect(answers.positions.count >= 50)
        let exported = try FlowLogProcess.run(["export", "--db", server.db]).stdoutLines
        let stored = Set(
            exported.compactMap { line -> Int? in
                guard case .integer(let position)? = try? JSONParser.parse(line)["position"] else { return nil }
                return position
            })
        #expect(Set(answers.positions).isSubset(of: stored), "every acknowledged event is in the log")
        #expect(try FlowLogProcess.run(["verify", "--db", server.db]).status == 0)
    }
}
