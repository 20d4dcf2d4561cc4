/// The tutorial scenarios Marbles ships, in the order the demo runs them.
public enum Scenarios {
    /// Every scenario, with its default seed.
    public static var all: [Scenario] { makers.map { $0.make(nil) } }

    /// The names, in demo order: `signin`, `twitter-instant`, …
    public static var names: [String] { makers.map(\.name) }

    /// The scenario called `name`, seeded with `seed` (its default seed when nil), or nil
    /// when there is no such scenario.
    public static func named(_ name: String, seed: UInt64? = nil) -> Scenario? {
        makers.first { $0.name == name }?.make(seed)
    }

    private static let makers: [(name: String, make: @Sendable (UInt64?) -> Scenario)] = [
        ("signin", { seed in seed.map { SignIn(seed: $0) } ?? SignIn() }),
        ("twitter-instant", { seed in seed.map { TwitterInstant(seed: $0) } ?? TwitterInstant() }),
        ("registration", { seed in seed.map { RegistrationForm(seed: $0) } ?? RegistrationForm() }),
        ("pixels", { seed in seed.map { FunctionalReactivePixels(seed: $0) } ?? FunctionalReactivePixels() }),
        ("swift-search", { seed in seed.map { SwiftSearch(seed: $0) } ?? SwiftSearch() }),
    ]
}
