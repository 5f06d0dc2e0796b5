import Deciding
import FlowDomain
import Testing

/// SPEC §1: identifiers are 1 to 64 of `A-Z a-z 0-9 . _ : -`. `Identifier.isAllowed` answers from
/// two bit masks; every byte value is checked against the rule as written.
struct IdentifierTests {
    @Test func everyByteIsAllowedExactlyWhenTheRuleSaysSo() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(Identifier.isAllowed(byte) == allowed.contains(byte), "byte \(byte)")
        }
    }

    @Test func lengthIsOneToSixtyFour() {
        #expect(!Identifier.isValid(""))
        #expect(Identifier.isValid("a"))
        #expect(Identifier.isValid(String(repeating: "a", count: 64)))
        #expect(!Identifier.isValid(String(repeating: "a", count: 65)))
        #expect(!Identifier.isValid("cart 1"))
        #expect(!Identifier.isValid("café"))
    }
}
