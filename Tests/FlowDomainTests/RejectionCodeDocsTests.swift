import FlowDomain
import Foundation
import Testing

/// Every stable error code is in the contract's list (docs/spec.md), where clients look it up.
@Suite("Rejection codes in the spec")
struct RejectionCodeDocsTests {
    @Test func everyCodeIsNamedInTheSpec() throws {
        let spec = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/spec.md")
        let text = try String(contentsOf: spec, encoding: .utf8)
        for code in RejectionCode.allCases {
            #expect(text.contains("`\(code.rawValue)`"), "\(code.rawValue) is missing from docs/spec.md")
        }
        #expect(RejectionCode(rawValue: "idempotencyConflict") != nil)
    }
}
