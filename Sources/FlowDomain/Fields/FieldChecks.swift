public import Deciding

/// What a command's field of the shop's types may hold (SPEC §3, step 1), and the codes its
/// violations earn: the ranges the types below check with, so that a kind's declaration depends
/// on nothing of the app that declares it. The check of a whole command, in the spec's order, is
/// `Deciding`'s (`fieldViolation`).
public enum FieldChecks {
    public static let unitPriceRange = 0...100_000_000
    public static let quantityRange = 1...999
    public static let percentRange = 1...100
    public static let tabRange = 0...1
    /// A command's fixed amount off: at least a cent, at most the largest price.
    public static let amountOffRange = 1...100_000_000

    /// Whether `code` looks like an ISO 4217 currency code: three capital letters (EUR), as both
    /// analytics vendors want; the one rule for commands, `flowlog init` and `--currency`.
    public static func isCurrencyCode(_ code: String) -> Bool {
        code.utf8.count == 3 && code.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }
}

/// The codes the shop's field types answer with (the shop's rules' own are in App/Rejection.swift).
extension RejectionCode {
    public static let invalidPrice = RejectionCode(rawValue: "invalidPrice")
    public static let invalidQuantity = RejectionCode(rawValue: "invalidQuantity")
    public static let invalidPercent = RejectionCode(rawValue: "invalidPercent")
    public static let invalidAmount = RejectionCode(rawValue: "invalidAmount")
    public static let invalidTab = RejectionCode(rawValue: "invalidTab")
    public static let invalidCurrency = RejectionCode(rawValue: "invalidCurrency")
}
