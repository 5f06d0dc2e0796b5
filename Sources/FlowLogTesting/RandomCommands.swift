import Deciding
public import FlowDomain

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

/// Random commands that mostly make sense (a few products, discounts, orders) with a share of
/// out-of-range values, so that long sequences reach every rule and every error code.
///
/// Derived from the kinds' declarations: every command kind is drawn (a new kind is exercised
/// without a line here), and each field gets a value by its declared type and role.
public struct RandomCommands {
    public var products = ["p1", "p2", "p3", "p4"]
    public var prices = [0, 1, 99, 1250, 1999, 100_000_000]
    public var discountIds = ["D1", "D2", "D3"]
    /// How often a kind is drawn, relative to 1 for a kind not listed: the cart's commands come
    /// more often than taps, so carts fill up and check out.
    public var weights: [String: Int] = [
        "cart.addProduct": 12, "cart.removeProduct": 4, "cart.applyDiscount": 4,
        "cart.removeDiscount": 2, "cart.checkout": 3, "payment.succeeded": 2,
        "app.launched": 2,
    ]

    public init() {}

    public func command(using rng: inout some RandomNumberGenerator) -> AppCommand {
        let kinds = CommandKinds.all
        let total = kinds.reduce(0) { $0 + weight(of: $1) }
        var draw = Int.random(in: 0..<total, using: &rng)
        var chosen = kinds[0]
        for kind in kinds {
            draw -= weight(of: kind)
            if draw < 0 {
                chosen = kind
                break
            }
        }
        var values = FieldValues(generator: self, rng: rng)
        let command = try! AppCommand.decode(chosen.kind, &values)
        rng = values.rng
        return command
    }

    private func weight(of kind: CommandKindInfo) -> Int { weights[kind.typeName] ?? 1 }

    /// Values by field type and role; a unit price follows the product chosen before it, so most
    /// adds agree on prices (and a few do not: `priceMismatch`).
    private struct FieldValues<Generator: RandomNumberGenerator>: PayloadDecoder, FieldVisitor {
        let generator: RandomCommands
        var rng: Generator
        private var product: String?

        init(generator: RandomCommands, rng: Generator) {
            self.generator = generator
            self.rng = rng
        }

        private mutating func chance(_ oneIn: Int) -> Bool { Int.random(in: 0..<oneIn, using: &rng) == 0 }

        private mutating func identifier(_ field: Field) -> String {
            switch field.role.description {
            case "product id":
                let chosen = generator.products.randomElement(using: &rng)!
                product = chosen
                return chosen
            case "discount id": return generator.discountIds.randomElement(using: &rng)!
            case "order id": return "o-\(Int.random(in: 1...6, using: &rng))"
            default: return "\(field.name)-\(Int.random(in: 1...3, using: &rng))"
            }
        }

        private mutating func text(_ field: Field) -> String {
            field.role.description == "product name" ? "Name \(product ?? "x")" : "declined"
        }

        private mutating func number(_ field: Field) -> Int {
            switch field.type {
            case .cents:
                let index = product.flatMap { generator.products.firstIndex(of: $0) } ?? 0
                return generator.prices[index % generator.prices.count] + (chance(20) ? 1 : 0)
            case .quantity:
                switch Int.random(in: 0..<20, using: &rng) {
                case 0: return 0
                case 1: return 1000
                case 2, 3: return Int.random(in: 400...999, using: &rng)
                default: return Int.random(in: 1...5, using: &rng)
                }
            case .percent: return Int.random(in: 0...101, using: &rng)
            case .tab: return Int.random(in: -1...2, using: &rng)
            default: return Int.random(in: 0...10, using: &rng)
            }
        }

        mutating func visit(_ field: Field, _ value: inout String) {
            value = field.type.form == .identifier ? identifier(field) : text(field)
        }

        mutating func visit(_ field: Field, _ value: inout String?) {
            if Bool.random(using: &rng) {
                value = nil
                return
            }
            value = field.type.form == .identifier ? identifier(field) : text(field)
        }

        mutating func visit(_ field: Field, _ value: inout Int) { value = number(field) }
        mutating func visit(_ field: Field, _ value: inout Int?) { value = Bool.random(using: &rng) ? nil : number(field) }
        mutating func visit(_ field: Field, _ value: inout Bool) { value = chance(4) }
    }
}
