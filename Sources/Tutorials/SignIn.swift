import Foundation
import Signals

/// What the sign-in screen shows: what the pipeline's sinks have set.
public struct SignInScreen: Equatable, Sendable {
    /// Each field's background colour: clear when valid, yellow when not.
    public var usernameBackground: FieldColour = .clear
    public var passwordBackground: FieldColour = .clear
    /// The sign-in button's `enabled`, every time it was set, in order.
    public var signInEnabled: [Bool] = []
    /// Whether the "invalid credentials" text is hidden.
    public var failureHidden = true
    /// The result of each sign-in attempt, in order.
    public var results: [Bool] = []
    /// True once a sign-in succeeded (the app would navigate on).
    public var signedIn = false

    /// The screen before anything happened.
    public init() {}
}

/// The credentials a sign-in call sends.
public struct Credentials: Codable, Equatable, Sendable, CustomStringConvertible {
    /// The username field's text.
    public var username: String
    /// The password field's text (shown as dots).
    public var password: String

    public var description: String { "\(username)/\(String(repeating: "•", count: password.count))" }
}

/// The sign-in service's answer.
public struct SignInResponse: Codable, Equatable, Sendable, CustomStringConvertible {
    /// The session token of a successful sign-in.
    public var token: String
    public var description: String { "token \(token)" }
}

/// Why the sign-in service refused.
public enum SignInError: Error, Codable, Equatable, Sendable, CustomStringConvertible {
    /// Wrong username or password.
    case accessDenied

    public var description: String { "AccessDenied" }
}

/// ReactivePlayground's sign-in form (ReactiveCocoa tutorial, part 1): each field's text →
/// validity → background colour; both validities combined → the button's `enabled`; button
/// taps → side effects (disable the button, hide the failure text) → the sign-in service
/// (`flatMap`, not `map`: the subscriber wants the result, not a signal of it) → the result
/// on the main thread.
public struct SignIn: Scenario {
    public let name = "signin"
    public let title = "Sign-in (ReactivePlayground)"
    public let duration: TimeInterval = 4.4
    public let seed: UInt64

    /// The credentials the fake service accepts, as in the tutorial.
    public static let validCredentials = Credentials(username: "user", password: "password")

    public init(seed: UInt64 = 1) { self.seed = seed }

    /// The tutorial's validity rule for both fields.
    public static func isValid(_ text: String) -> Bool { text.count > 3 }

    public func build(in environment: Environment) -> Disposable {
        build(in: environment, screen: Guarded(SignInScreen()))
    }

    /// Builds the pipeline, writing what it shows into `screen`.
    public func build(in environment: Environment, screen: Guarded<SignInScreen>) -> Disposable {
        let main = environment.scheduler("main")
        let network = environment.scheduler("network")
        let service = FakeService(seed: seed)
        let disposables = CompositeDisposable()

        func signIn(_ credentials: Credentials) -> SignalProducer<SignInResponse, SignInError> {
            environment.call("signIn") {
                let latency = service.latency(0.17...0.26)
                let result: Result<SignInResponse, SignInError> = credentials == Self.validCredentials
                    ? .success(SignInResponse(token: "t-\(credentials.username)")) : .failure(.accessDenied)
                return service.respond(result, after: latency, on: network)
            }
        }

        let username = environment.input("username", of: String.self)
        let password = environment.input("password", of: String.self)
        let taps = environment.input("signInTap", of: Int.self)

        // Split: each validity feeds both its field's colour and the combined button state.
        let validUsername = username.map(Self.isValid).named("validUsername")
        let validPassword = password.map(Self.isValid).named("validPassword")
        disposables += validUsername.map { $0 ? FieldColour.clear : .yellow }.named("usernameBackground")
            .observeValues { colour in screen.modify { $0.usernameBackground = colour } }
        disposables += validPassword.map { $0 ? FieldColour.clear : .yellow }.named("passwordBackground")
            .observeValues { colour in screen.modify { $0.passwordBackground = colour } }
        disposables += Signal.combineLatest(validUsername, validPassword, reduce: { $0 && $1 }).named("signInEnabled")
            .observeValues { enabled in screen.modify { $0.signInEnabled.append(enabled) } }

        // The tutorial reads the fields' text when the button is tapped; here the latest text
        // is part of the pipeline, so a replay sees it too.
        let credentials = Signal.combineLatest(username, password, reduce: { Credentials(username: $0, password: $1) })
            .named("credentials")
        disposables += taps
            .on(value: { _ in
                screen.modify {
                    $0.signInEnabled.append(false)
                    $0.failureHidden = true
                }
            })
            .named("doNext")
            .withLatest(from: credentials)
            .flatMap(.merge) { _, credentials in
                signIn(credentials).map { _ in true }.flatMapError { _ in SignalProducer<Bool, Never>(value: false) }
            }
            .named("signInSignal")
            .observe(on: main)
            .observeValues { success in
                screen.modify {
                    $0.signInEnabled.append(true)
                    $0.failureHidden = success
                    $0.results.append(success)
                    if success { $0.signedIn = true }
                }
            }
        return disposables
    }

    /// Types a username, a wrong password, taps, finishes the password, taps again.
    public func script(seed: UInt64) -> [ScriptStep] {
        var generator = SeededGenerator(seed: seed)
        let gaps: ClosedRange<TimeInterval> = 0.10...0.18
        let user = typing(prefixes(of: "user"), into: "username", from: 0.25, gaps: gaps, &generator)
        let wrong = typing(prefixes(of: "pass"), into: "password", from: user.end + generator.seconds(0.35...0.5),
                           gaps: gaps, &generator)
        let firstTap = wrong.end + generator.seconds(0.3...0.4)
        let right = typing(Array(prefixes(of: "password").dropFirst(4)), into: "password",
                           from: firstTap + generator.seconds(0.5...0.6), gaps: gaps, &generator)
        let secondTap = right.end + generator.seconds(0.25...0.35)
        return user.steps + wrong.steps + [.tap("signInTap", 1, at: firstTap)] + right.steps
            + [.tap("signInTap", 2, at: secondTap)]
    }
}
