import FlowLogLMDB
import FlowLogTesting
import Foundation
import Testing

/// What `send` reads: blank lines and a leading byte order mark are skipped (and answered by
/// nothing); a command id used again for a different command is an `idempotencyConflict`.
@Suite("send input")
struct SendInputCLITests {
    private let launch = #"{"type":"app.launched","hasOnboarded":false,"stream":"s"}"#
    private let signUp = #"{"type":"welcome.signUp","stream":"s"}"#

    @Test func blankLinesAndALeadingByteOrderMarkAreSkipped() throws {
        let folder = TemporaryDirectory()
        let input = "\u{FEFF}" + launch + "\n\n   \t\n\r\n" + signUp + "\n\n"
        let result = try FlowLogProcess.run(["send", "--db", folder.child("log")], stdin: input)
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(
            result.stdoutLines == [
                #"{"ok":true,"stream":"s","positions":[1],"version":1}"#,
                #"{"ok":true,"stream":"s","positions":[2],"version":2}"#,
            ])
        // Only a mark at the very start is one: elsewhere it is a character of the line.
        let inside = try FlowLogProcess.run(["send", "--db", folder.child("log")], stdin: launch + "\n\u{FEFF}" + signUp + "\n")
        #expect(inside.status == 1)
        #expect(inside.stdoutLines.count == 2)
        #expect(inside.stdoutLines[1].contains("malformedCommand"))
    }

    @Test func theSameIdForADifferentCommandIsAnIdempotencyConflict() throws {
        let folder = TemporaryDirectory()
        let db = ["--db", folder.child("log")]
        let add = #"{"type":"cart.addProduct","stream":"s","productId":"p1","unitPrice":100,"quantity":1,"id":"c1"}"#
        let other = #"{"type":"cart.addProduct","stream":"s","productId":"p1","unitPrice":100,"quantity":5,"id":"c1"}"#
        let first = try FlowLogProcess.run(["send"] + db, stdin: add + "\n" + other + "\n" + add + "\n")
        #expect(first.status == 1)
        #expect(first.stdoutLines.count == 3)
        #expect(first.stdoutLines[0] == #"{"ok":true,"stream":"s","positions":[1],"version":1}"#)
        #expect(
            first.stdoutLines[1].hasPrefix(
                #"{"ok":false,"stream":"s","error":{"code":"idempotencyConflict","message":"Command id c1 was used in stream s for another command"#),
            "\(first.stdoutLines[1])")
        #expect(first.stdoutLines[2] == #"{"ok":true,"stream":"s","positions":[1],"version":1,"duplicate":true}"#)
        // In a later process, and for another type of command.
        let later = try FlowLogProcess.run(
            ["send"] + db, stdin: other + "\n" + #"{"type":"cart.checkout","stream":"s","id":"c1"}"# + "\n" + add + "\n")
        #expect(later.status == 1)
        #expect(later.stdoutLines[0].contains("idempotencyConflict"))
        #expect(later.stdoutLines[1].contains("idempotencyConflict"))
        #expect(later.stdoutLines[2].contains(#""duplicate":true"#))
        let typed = try FlowLogProcess.run(["cart", "add", "--product", "p1", "--price", "2", "--stream", "s", "--id", "c1"] + db)
        #expect(typed.status == 1)
        #expect(typed.stderr.contains("(idempotencyConflict)"), "\(typed.stderr)")
        #expect(try LMDBEventLog(path: folder.child("log"), access: .readOnly).lastPosition() == 1, "nothing was appended")
    }
}
