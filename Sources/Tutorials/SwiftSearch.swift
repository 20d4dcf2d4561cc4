import Foundation
import Signals

/// The search results of the Swift port: for a text of length n, "somebody 1" … "somebody n".
public struct SearchResults: Codable, Equatable, Sendable, CustomStringConvertible {
    /// The text searched for.
    public var query: String
    /// The rows of the table.
    public var names: [String]

    public var description: String { "\(names.count) results" }
}

/// What the search table shows.
public struct SwiftSearchScreen: Equatable, Sendable {
    /// The query of each result set displayed, in order.
    public var displayedQueries: [String] = []
    /// The rows displayed now.
    public var rows: [String] = []

    /// The screen before anything happened.
    public init() {}
}

/// The Swift search chapter (ReactiveCocoa 4): the text as a `SignalProducer` → `filter`
/// (length > 4) → ReactiveSwift's `throttle` 0.5 s on the main scheduler → `flatMap(.latest)`
/// into a producer of the results → `observe(on:)` the UI scheduler → the table. The point of
/// the chapter: a typed, cold producer, and `flatMap(.latest)` rather than a producer of
/// producers.
public struct SwiftSearch: Scenario {
    public let name = "swift-search"
    public let title = "Swift search (ReactiveCocoa 4)"
    public let duration: TimeInterval = 2.9
    public let seed: UInt64

    public init(seed: UInt64 = 1) { self.seed = seed }

    /// The chapter's rule for a search worth running: longer than 4.
    public static func isValidSearchString(_ text: String) -> Bool { text.count > 4 }

    /// The chapter's fake results for a text.
    public static func results(for text: String) -> SearchResults {
        SearchResults(query: text, names: (1...max(text.count, 1)).map { "somebody \($0)" })
    }

    public func build(in environment: Environment) -> Disposable {
        build(in: environment, screen: Guarded(SwiftSearchScreen()))
    }

    /// Builds the pipeline, writing what it shows into `screen`.
    public func build(in environment: Environment, screen: Guarded<SwiftSearchScreen>) -> Disposable {
        let main = environment.scheduler("main")
        // The chapter's `UIScheduler()`: the environment's main scheduler, so a replay keeps it.
        let ui = environment.scheduler("main")
        let searchText = environment.input("searchTextInput", of: String.self)
        return SignalProducer(searchText)
            .filter(Self.isValidSearchString)
            .named("validSearchString")
            .throttle(0.5, on: main)
            .flatMap(.latest) { text in
                SignalProducer<SearchResults, Never> { observer, _ in
                    observer.send(value: Self.results(for: text))
                    observer.sendCompleted()
                }
            }
            .named("results")
            .observe(on: ui)
            .startWithValues { results in
                screen.modify {
                    $0.displayedQueries.append(results.query)
                    $0.rows = results.names
                }
            }
    }

    /// Types "reactive" quickly (throttled: the first valid text at once, the last at the end
    /// of the interval), pauses, then types " swift" as quickly.
    public func script(seed: UInt64) -> [ScriptStep] {
        var generator = SeededGenerator(seed: seed)
        // Bursts last at most 0.35 s, so the last text always lands inside the 0.5 s window
        // opened by the first; the pause is long enough for the next burst to open a new one.
        let gaps: ClosedRange<TimeInterval> = 0.06...0.07
        let first = typing(prefixes(of: "reactive"), into: "searchTextInput", from: 0.3, gaps: gaps, &generator)
        let second = typing(Array(prefixes(of: "reactive swift").dropFirst(8)), into: "searchTextInput",
                            from: first.end + generator.seconds(1.0...1.1), gaps: gaps, &generator)
        return first.steps + second.steps
    }
}
