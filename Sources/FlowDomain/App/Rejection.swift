public import Deciding

/// The shop's refusals (docs/spec.md §3–4), beside the log's own answers (`RejectionCode.logCodes`)
/// and its field types' (Kinds/FieldChecks.swift): the cart's and the onboarding flow's rules.
extension RejectionCode {
    public static let cartNotOpen = RejectionCode(rawValue: "cartNotOpen")
    /// A product in another currency than the cart's.
    public static let currencyMismatch = RejectionCode(rawValue: "currencyMismatch")
    public static let priceMismatch = RejectionCode(rawValue: "priceMismatch")
    public static let quantityLimit = RejectionCode(rawValue: "quantityLimit")
    public static let cartFull = RejectionCode(rawValue: "cartFull")
    public static let productNotInCart = RejectionCode(rawValue: "productNotInCart")
    public static let duplicateDiscount = RejectionCode(rawValue: "duplicateDiscount")
    public static let discountNotApplied = RejectionCode(rawValue: "discountNotApplied")
    public static let emptyCart = RejectionCode(rawValue: "emptyCart")
    public static let noCheckoutInProgress = RejectionCode(rawValue: "noCheckoutInProgress")
    public static let duplicateOrder = RejectionCode(rawValue: "duplicateOrder")
    public static let notLaunched = RejectionCode(rawValue: "notLaunched")
    public static let invalidTransition = RejectionCode(rawValue: "invalidTransition")
}

extension FlowDecider {
    /// Every code this domain's commands may be answered with that the log does not declare.
    public static let rejectionCodes: [RejectionCode] = [
        .invalidPrice, .invalidQuantity, .invalidPercent, .invalidAmount, .invalidTab, .invalidText, .invalidCurrency,
        .cartNotOpen, .currencyMismatch, .priceMismatch, .quantityLimit, .cartFull, .productNotInCart, .duplicateDiscount,
        .discountNotApplied, .emptyCart, .noCheckoutInProgress, .duplicateOrder, .notLaunched, .invalidTransition,
    ]
}
