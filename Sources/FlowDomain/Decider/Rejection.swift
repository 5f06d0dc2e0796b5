/// The stable error codes of SPEC §2–4. Their raw values are part of the CLI's JSON contract.
public enum RejectionCode: String, Sendable, CaseIterable {
    case malformedCommand
    case unknownCommand
    case invalidIdentifier
    case invalidPrice
    case invalidQuantity
    case invalidPercent
    case invalidAmount
    case invalidTab
    case invalidText
    case invalidCurrency
    /// The command id was accepted before in the stream, for a different command.
    case idempotencyConflict
    case versionConflict
    case cartNotOpen
    /// A product in another currency than the cart's.
    case currencyMismatch
    case priceMismatch
    case quantityLimit
    case cartFull
    case productNotInCart
    case duplicateDiscount
    case discountNotApplied
    case emptyCart
    case noCheckoutInProgress
    case duplicateOrder
    case notLaunched
    case invalidTransition
    /// The command's event needs a version of its kind that the log's schema cannot hold until
    /// `flowlog upgrade` raises it.
    case logUpgradeRequired
}

/// Why a command was refused: a stable code for programs and a sentence for a person that says
/// what was wrong and how to mend it. A rejected command appends nothing.
public struct Rejection: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: RejectionCode
    public let message: String

    public init(_ code: RejectionCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
