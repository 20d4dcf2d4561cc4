import Foundation
import Signals

/// One tweet of a search result.
public struct Tweet: Codable, Equatable, Sendable, CustomStringConvertible {
    /// The author's handle, without the @.
    public var user: String
    /// The tweet.
    public var text: String
    /// Where the author's avatar downloads from.
    public var avatarURL: String

    public var description: String { "@\(user)" }
}

/// The search service's answer: the tweets matching a query.
public struct TweetSearch: Codable, Equatable, Sendable, CustomStringConvertible {
    /// The text searched for.
    public var query: String
    /// The tweets found, best first.
    public var tweets: [Tweet]

    public var description: String { "\(tweets.count) tweets \"\(query)\"" }
}

/// An avatar image, as far as the simulation cares: where it came from and its size.
public struct Avatar: Codable, Equatable, Sendable, CustomStringConvertible {
    /// Where the image came from.
    public var url: String
    /// Its size.
    public var bytes: Int

    public var description: String { "avatar \(bytes / 1024) KB" }
}

/// The TwitterInstant errors, with the tutorial's names.
public enum TwitterError: Error, Codable, Equatable, Sendable, CustomStringConvertible {
    /// The user refused access to their Twitter accounts.
    case accessDenied
    /// The device has no Twitter account.
    case noTwitterAccounts
    /// The search API answered with a status other than 200.
    case invalidResponse(status: Int)

    public var description: String {
        switch self {
        case .accessDenied: return "AccessDenied"
        case .noTwitterAccounts: return "NoTwitterAccounts"
        case let .invalidResponse(status): return "InvalidResponse(\(status))"
        }
    }
}

/// What the TwitterInstant screen shows.
public struct TwitterInstantScreen: Equatable, Sendable {
    /// The search field's background colour.
    public var searchBackground: FieldColour = .white
    /// The query of each result set displayed, in order.
    public var displayedQueries: [String] = []
    /// The tweets displayed now.
    public var tweets: [Tweet] = []
    /// The avatar set on each cell (by row).
    public var avatars: [Int: Avatar] = [:]
    /// The error the subscriber's error block logged, if any.
    public var error: TwitterError?

    /// The screen before anything happened.
    public init() {}
}

/// TwitterInstant (ReactiveCocoa tutorial, part 2): request access to the Twitter accounts
/// (`then`) → search text → `filter` (length > 2) → RAC2's `throttle:` 0.5 s (a debounce)
/// → `flatMap(.latest)` to the search service on the network scheduler → `observe(on:)`
/// main → display, or the error block. Each displayed cell loads its avatar with
/// `start(on:)` a background scheduler, `observe(on:)` main and `take(until:)` the cell's
/// reuse.
public struct TwitterInstant: Scenario {
    public let name = "twitter-instant"
    public let title = "TwitterInstant"
    public let duration: TimeInterval = 4.6
    public let seed: UInt64
    /// Whether the user grants access to the accounts.
    public let accessGranted: Bool
    /// How many Twitter accounts the device has (none: every search fails).
    public let accounts: Int
    /// The chance that a search answers with status 500.
    public let failureRate: Double
    /// Seconds without a newer text before the text is searched (RAC2's `throttle:`; the tutorial's 0.5).
    public let quietPeriod: TimeInterval
    /// What every simulated latency is multiplied by: 1 the tutorial's, 0 answers at once (the same draws).
    public let latencyScale: Double

    /// Table rows whose cells show an avatar.
    public static let visibleRows = 4

    /// The tutorial's screen; a benchmark shortens `quietPeriod` and `latencyScale` to time the pipeline
    /// rather than the simulated waits (the script is written for the defaults). Negative values count as 0.
    public init(seed: UInt64 = 1, accessGranted: Bool = true, accounts: Int = 1, failureRate: Double = 0.1,
                quietPeriod: TimeInterval = 0.5, latencyScale: Double = 1) {
        self.seed = seed
        self.accessGranted = accessGranted
        self.accounts = accounts
        self.failureRate = failureRate
        self.quietPeriod = max(0, quietPeriod)
        self.latencyScale = max(0, latencyScale)
    }

    public func build(in environment: Environment) -> Disposable {
        build(in: environment, screen: Guarded(TwitterInstantScreen()))
    }

    /// Builds the pipeline, writing what it shows into `screen`. `displayed` hears each search
    /// result on the main scheduler as soon as the screen shows its tweets, before their
    /// avatars start loading: where a benchmark ends a query's end-to-end time.
    public func build(in environment: Environment, screen: Guarded<TwitterInstantScreen>,
                      displayed: @escaping (TweetSearch) -> Void = { _ in }) -> Disposable {
        let main = environment.scheduler("main")
        let network = environment.scheduler("network")
        let background = environment.scheduler("background")
        let service = FakeService(seed: seed)
        let disposables = CompositeDisposable()
        let (accessGranted, accounts, failureRate, scale) = (self.accessGranted, self.accounts, self.failureRate, latencyScale)

        let requestAccessToTwitter = environment.call("requestAccessToTwitter") { () -> SignalProducer<Bool, TwitterError> in
            let latency = service.latency(0.08...0.14) * scale
            return service.respond(accessGranted ? .success(true) : .failure(.accessDenied), after: latency, on: network)
        }

        func signalForSearch(_ text: String) -> SignalProducer<TweetSearch, TwitterError> {
            environment.call("search", request: text) {
                guard accounts > 0 else {
                    return service.respond(.failure(.noTwitterAccounts), after: 0.01 * scale, on: network)
                }
                let latency = service.latency(1.2...1.4) * scale
                let result: Result<TweetSearch, TwitterError> = service.chance(failureRate)
                    ? .failure(.invalidResponse(status: 500))
                    : .success(TweetSearch(query: text, tweets: Self.tweets(for: text)))
                return service.respond(result, after: latency, on: network)
            }
        }

        // Large avatars (the later rows here) take much longer than small ones.
        func loadAvatar(_ tweet: Tweet, row: Int) -> SignalProducer<Avatar, TwitterError> {
            environment.call("avatar", request: tweet.avatarURL) {
                let latency = (row < 2 ? service.latency(0.15...0.3) : service.latency(1.1...1.4)) * scale
                let avatar = Avatar(url: tweet.avatarURL, bytes: row < 2 ? 12_288 : 262_144)
                return service.respond(.success(avatar), after: latency, on: background)
            }
        }

        let searchText = environment.input("searchText", of: String.self)
        let prepareForReuse = environment.input("prepareForReuse", of: Int.self)

        disposables += searchText.map { Self.isValidSearch($0) ? FieldColour.white : .yellow }.named("searchBackground")
            .observeValues { colour in screen.modify { $0.searchBackground = colour } }
        func display(_ search: TweetSearch) {
            screen.modify {
                $0.displayedQueries.append(search.query)
                $0.tweets = search.tweets
            }
            displayed(search)
            for (row, tweet) in search.tweets.prefix(Self.visibleRows).enumerated() {
                disposables += loadAvatar(tweet, row: row)
                    .start(on: background)
                    .observe(on: main)
                    .take(until: prepareForReuse.filter { $0 == row })
                    .startWithValues { avatar in screen.modify { $0.avatars[row] = avatar } }
            }
        }

        disposables += requestAccessToTwitter
            .then(SignalProducer(searchText).promoteError(TwitterError.self))
            .filter(Self.isValidSearch)
            .named("validSearchText")
            .throttle(quietPeriod: quietPeriod, on: main)
            .flatMap(.latest) { signalForSearch($0) }
            .named("searchResults")
            .observe(on: main)
            .start(Signals.Observer(value: display, failed: { error in screen.modify { $0.error = error } }))
        return disposables
    }

    /// Types "m" … "magic!" in two bursts (so the debounce lets "magi" through, then
    /// "magic!", whose search replaces the one in flight), then scrolls the avatars' cells
    /// off screen while the large avatars are still loading.
    public func script(seed: UInt64) -> [ScriptStep] {
        var generator = SeededGenerator(seed: seed)
        // Each time is a planned moment plus up to 40 ms of jitter. The plan keeps every race
        // at least 0.2 s from its outcome: a gap inside a burst is far below the 0.5 s quiet
        // period, a pause far above; "magic!" is debounced 0.25 s before the "magi" search can
        // answer; the scroll comes 0.25 s after the small avatars and before the large ones.
        let planned: [(TimeInterval, String)] = [
            (0.25, "m"), (0.45, "ma"), (0.62, "mag"), (0.80, "magi"), (1.58, "magic"), (1.76, "magic!"),
        ]
        var steps = planned.map { ScriptStep.type($0.1, into: "searchText", at: $0.0 + generator.seconds(0...0.04)) }
        let scroll = 4.25 + generator.seconds(0...0.04)
        steps += (0..<Self.visibleRows).map { row in
            ScriptStep(at: scroll, "cell \(row) scrolled off") { try $0.send(row, to: "prepareForReuse") }
        }
        return steps
    }
}

// After the pipeline, so that its operators keep the source lines the committed recording
// (traces/twitter-instant.trace) names.
extension TwitterInstant {
    /// The tutorial's rule for a search worth sending.
    public static func isValidSearch(_ text: String) -> Bool { text.count > 2 }

    /// The fake search index: a few tweets per query, the same for the same query.
    public static func tweets(for query: String) -> [Tweet] {
        let count = 4 + query.count % 3
        return (1...count).map { index in
            let user = "\(["ana", "bo", "cy", "dee", "eli", "fay"][index - 1])_\(query.count)"
            return Tweet(user: user, text: "#\(index) about \(query)", avatarURL: "https://pbs.example/\(user).png")
        }
    }
}
