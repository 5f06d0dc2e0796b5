import Deciding
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
        for code in RejectionCode.logCodes + FlowDecider.rejectionCodes {
            #expect(text.contains("`\(code.rawValue)`"), "\(code.rawValue) is missing from docs/spec.md")
        }
    }

    /// The log's answers and the domain's refusals are two lists of one code space: a domain that
    /// declared a code of the log's (or the same code twice) would make answers ambiguous.
    @Test func theDomainsCodesAreItsOwn() {
        let all = RejectionCode.logCodes + FlowDecider.rejectionCodes
        #expect(Set(all).count == all.count, "\(all.map(\.rawValue))")
        #expect(RejectionCode.idempotencyConflict.rawValue == "idempotencyConflict")
    }
}
