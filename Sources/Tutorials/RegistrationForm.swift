import Foundation
import Signals

/// What the registration form shows.
public struct RegistrationScreen: Equatable, Sendable {
    /// Each field's background colour: white when valid, yellow when not.
    public var usernameBackground: FieldColour = .white
    public var passwordBackground: FieldColour = .white
    public var confirmationBackground: FieldColour = .white
    /// The sign-up button's `enabled`, every time it was set, in order.
    public var signUpEnabled: [Bool] = []

    /// The screen before anything happened.
    public init() {}
}

/// The registration form (ReactiveCocoa tutorial blog): username valid when longer than 3,
/// password when longer than 5, confirmation when the password is valid and the two texts are
/// equal (`combineLatest` + reduce); each validity → its field's colour; all three combined →
/// the sign-up button's `enabled`.
public struct RegistrationForm: Scenario {
    public let name = "registration"
    public let title = "Registration form"
    public let duration: TimeInterval = 4.0
    public let seed: UInt64

    public init(seed: UInt64 = 1) { self.seed = seed }

    /// The tutorial's rule for a username: longer than 3.
    public static func isValidUsername(_ text: String) -> Bool { text.count > 3 }
    /// The tutorial's rule for a password: longer than 5.
    public static func isValidPassword(_ text: String) -> Bool { text.count > 5 }

    public func build(in environment: Environment) -> Disposable {
        build(in: environment, screen: Guarded(RegistrationScreen()))
    }

    /// Builds the pipeline, writing what it shows into `screen`.
    public func build(in environment: Environment, screen: Guarded<RegistrationScreen>) -> Disposable {
        let disposables = CompositeDisposable()
        let username = environment.input("username", of: String.self)
        let password = environment.input("password", of: String.self)
        let confirmation = environment.input("confirmation", of: String.self)

        let validUsername = username.map(Self.isValidUsername).named("userNameSignal")
        let validPassword = password.map(Self.isValidPassword).named("passwordSignal")
        let validConfirmation = Signal.combineLatest(password, confirmation, reduce: { password, confirmation in
            Self.isValidPassword(password) && password == confirmation
        }).named("confirmSignal")

        func colour(_ valid: Bool) -> FieldColour { valid ? .white : .yellow }
        disposables += validUsername.map(colour).named("usernameBackground")
            .observeValues { colour in screen.modify { $0.usernameBackground = colour } }
        disposables += validPassword.map(colour).named("passwordBackground")
            .observeValues { colour in screen.modify { $0.passwordBackground = colour } }
        disposables += validConfirmation.map(colour).named("confirmationBackground")
            .observeValues { colour in screen.modify { $0.confirmationBackground = colour } }
        disposables += Signal.combineLatest([validUsername, validPassword, validConfirmation],
                                            reduce: { $0.allSatisfy { $0 } })
            .named("signUpEnabled")
            .observeValues { enabled in screen.modify { $0.signUpEnabled.append(enabled) } }
        return disposables
    }

    /// Types a username and a password, mistypes the confirmation, deletes back and retypes it.
    public func script(seed: UInt64) -> [ScriptStep] {
        var generator = SeededGenerator(seed: seed)
        let gaps: ClosedRange<TimeInterval> = 0.06...0.12
        let user = typing(prefixes(of: "alice"), into: "username", from: 0.2, gaps: gaps, &generator)
        let pass = typing(prefixes(of: "secret"), into: "password", from: user.end + generator.seconds(0.3...0.4),
                          gaps: gaps, &generator)
        let typo = typing(prefixes(of: "secrat"), into: "confirmation", from: pass.end + generator.seconds(0.3...0.4),
                          gaps: gaps, &generator)
        let back = typing(["secra", "secr"], into: "confirmation", from: typo.end + generator.seconds(0.35...0.45),
                          gaps: 0.12...0.16, &generator)
        let retype = typing(["secre", "secret"], into: "confirmation", from: back.end + generator.seconds(0.2...0.3),
                            gaps: gaps, &generator)
        return user.steps + pass.steps + typo.steps + back.steps + retype.steps
    }
}
