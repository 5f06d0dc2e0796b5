import FlowDomain

/// SplitMix64: a tiny, fast, seedable generator, so a failing property test can be re-run exactly
/// from the seed it prints.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random commands that mostly make sense (a few products, discounts, the navigation commands) with a
/// share of out-of-range values, so that long sequences reach every rule and every error code.
public struct RandomCommands {
    public var products = ["p1", "p2", "p3", "p4"]
    public var prices = [0, 1, 99, 1250, 1999, 100_000_000]
    public var discountIds = ["D1", "D2", "D3"]

    public init() {}

    public func command(using rng: inout some RandomNumberGenerator) -> AppCommand {
        let product = products.randomElement(using: &rng)!
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<30:
            let unitPrice = prices[products.firstIndex(of: product)! % prices.count] + (Int.random(in: 0..<20, using: &rng) == 0 ? 1 : 0)
            return .cart(.addProduct(.init(productId: product, name: Bool.random(using: &rng) ? nil : "Name \(product)",
                                     unitPrice: unitPrice, quantity: quantity(using: &rng, large: true))))
        case 30..<40:
            return .cart(.removeProduct(.init(productId: product, quantity: Bool.random(using: &rng) ? nil : quantity(using: &rng, large: false))))
        case 40..<50:
            return .cart(.applyDiscount(.init(discountId: discountIds.randomElement(using: &rng)!, percent: Int.random(in: 0...101, using: &rng),
                                        productId: Bool.random(using: &rng) ? nil : product)))
        case 50..<55:
            return .cart(.removeDiscount(.init(discountId: discountIds.randomElement(using: &rng)!)))
        case 55..<62:
            return .cart(.checkout)
        case 62..<67:
            return .payment(.succeeded(.init(orderId: "o-\(Int.random(in: 1...6, using: &rng))")))
        case 67..<70:
            return .payment(.failed(.init(reason: "declined")))
        case 70..<74:
            return .app(.launched(.init(hasOnboarded: Int.random(in: 0..<4, using: &rng) == 0)))
        default:
            let navigation: [AppCommand] = [
                .welcome(.signUp), .welcome(.logIn), .onboarding(.next), .onboarding(.back), .onboarding(.finish),
                .login(.succeeded), .login(.cancel), .home(.selectTab(.init(tab: Int.random(in: -1...2, using: &rng)))),
                .home(.presentModal), .modal(.dismiss),
            ]
            return navigation.randomElement(using: &rng)!
        }
    }

    private func quantity(using rng: inout some RandomNumberGenerator, large: Bool) -> Int {
        switch Int.random(in: 0..<20, using: &rng) {
        case 0: 0
        case 1: 1000
        case 2, 3: large ? Int.random(in: 400...999, using: &rng) : Int.random(in: 1...999, using: &rng)
        default: Int.random(in: 1...5, using: &rng)
        }
    }
}
