import FlowDomain
import FlowLog
import FlowLogBasics
import FlowLogLMDB
import FlowLogTesting
import Foundation
import Testing

/// An `ok` answer means "on disk": a `send` killed with SIGKILL mid-stream loses none of the events
/// whose lines it answered.
@Suite("Crash safety")
struct CrashSafetyTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func aKilledSendLosesNoAcknowledgedEvent(seed: UInt64) throws {
        // The writer thread may write into the pipe after the reader was killed: that must be an
        // error it can see (EPIPE), not a signal that ends the test run.
        signal(SIGPIPE, SIG_IGN)
        let folder = TemporaryDirectory()
        let path = folder.child("log")
        var rng = SplitMix64(seed: seed)
        let generator = RandomCommands()
        let lines = (0..<40_000).map { index in
            WireCommand.encode(CommandEnvelope(stream: "s\(index % 7)", command: generator.command(using: &rng)))
        }
        let process = Process()
        process.executableURL = FlowLogProcess.executable
        process.arguments = ["send", "--db", path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let writer = Thread {
            for chunk in stride(from: 0, to: lines.count, by: 200) {
                let text = lines[chunk..<min(chunk + 200, lines.count)].joined(separator: "\n") + "\n"
                do { try input.fileHandleForWriting.write(contentsOf: Data(text.utf8)) } catch { return }
            }
        }
        writer.start()
        // Read answers until a random number have arrived, then kill the writer process.
        let killAfter = Int.random(in: 2_000...20_000, using: &rng)
        var answers: [String] = []
        var buffer = Data()
        let reader = output.fileHandleForReading
        while answers.count < killAfter {
            let data = reader.availableData
            if data.isEmpty { break }
            buffer.append(data)
            while let newline = buffer.firstIndex(of: 0x0A) {
                answers.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                buffer.removeSubrange(buffer.startIndex...newline)
            }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(answers.count >= min(killAfter, lines.count) - 1)

        let log = try LMDBEventLog(path: path, access: .readOnly)
        let recorded = try log.events()  // walks and checks the whole chain
        #expect(recorded.map(\.position) == Array(1...max(recorded.count, 1)).prefix(recorded.count).map { $0 })
        var acknowledged = 0
        for answer in answers {
            let value = try JSONParser.parse(answer)
            guard value["ok"] == .bool(true), case .array(let positions)? = value["positions"], case .string(let stream)? = value["stream"] else {
                continue
            }
            for case .integer(let position) in positions {
                acknowledged += 1
                #expect(position <= recorded.count, "acknowledged position \(position) is missing")
                if position <= recorded.count { #expect(recorded[position - 1].stream == stream) }
            }
        }
        #expect(acknowledged > 0)
        // Stream versions stay contiguous.
        var versions: [String: Int] = [:]
        for event in recorded {
            #expect(event.version == versions[event.stream, default: 0] + 1)
            versions[event.stream] = event.version
        }
    }
}
