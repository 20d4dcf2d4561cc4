import Foundation
import MarbleStreams
import Signals
import TraceLog
import Tutorials
import XCTest

/// Each tutorial pipeline, run in virtual time with its own script, shows what the tutorial
/// says it shows.
final class ScenarioTests: XCTestCase {
    // MARK: Sign-in

    func testSignInFailsWithTheWrongPasswordThenSucceeds() throws {
        let scenario = SignIn()
        let screen = Guarded(SignInScreen())
        let run = try runVirtually(scenario) { scenario.build(in: $0, screen: screen) }
        XCTAssertEqual(screen.value.results, [false, true])
        XCTAssertTrue(screen.value.signedIn)
        XCTAssertTrue(screen.value.failureHidden)
        XCTAssertEqual(screen.value.usernameBackground, .clear)
        XCTAssertEqual(screen.value.passwordBackground, .clear)
        XCTAssertEqual(run.environment.calls, ["signIn", "signIn"])
        XCTAssertEqual(run.trace.values(of: "credentials").suffix(1), ["user/••••••••"])
        // The failed attempt reaches the subscriber as a result, not as the end of the stream.
        XCTAssertEqual(run.trace.values(of: "signInSignal"), ["false", "true"])
    }

    func testSignInButtonIsEnabledOnlyWhenBothFieldsAreValid() throws {
        let environment = VirtualEnvironment()
        let screen = Guarded(SignInScreen())
        let pipeline = SignIn().build(in: environment, screen: screen)
        defer { pipeline.dispose() }
        try environment.send("use", to: "username")
        try environment.send("password", to: "password")
        XCTAssertEqual(screen.value.signInEnabled, [false])
        XCTAssertEqual(screen.value.usernameBackground, .yellow)
        try environment.send("user", to: "username")
        try environment.send("pas", to: "password")
        try environment.send("pass", to: "password")
        XCTAssertEqual(screen.value.signInEnabled, [false, true, false, true])
        XCTAssertEqual(screen.value.usernameBackground, .clear)
    }

    func testATapDisablesTheButtonUntilTheServiceAnswers() throws {
        let environment = VirtualEnvironment()
        let screen = Guarded(SignInScreen())
        let pipeline = SignIn().build(in: environment, screen: screen)
        defer { pipeline.dispose() }
        try environment.send("user", to: "username")
        try environment.send("password", to: "password")
        try environment.send(1, to: "signInTap")
        XCTAssertEqual(screen.value.signInEnabled, [true, false])
        XCTAssertEqual(screen.value.results, [])
        environment.scheduler.advance(by: 0.3)
        XCTAssertEqual(screen.value.signInEnabled, [true, false, true])
        XCTAssertEqual(screen.value.results, [true])
    }

    // MARK: TwitterInstant

    func testTwitterInstantSearchesOnlyTheDebouncedTextAndCancelsTheStaleSearch() throws {
        let scenario = TwitterInstant()
        let screen = Guarded(TwitterInstantScreen())
        let run = try runVirtually(scenario) { scenario.build(in: $0, screen: screen) }
        XCTAssertNil(screen.value.error)
        XCTAssertEqual(screen.value.displayedQueries, ["magic!"])
        XCTAssertEqual(screen.value.tweets, TwitterInstant.tweets(for: "magic!"))
        XCTAssertEqual(screen.value.searchBackground, .white)
        // "m" and "ma" are filtered out; of the rest only the last of each burst passes.
        XCTAssertEqual(run.trace.values(of: "validSearchText"), ["mag", "magi", "magic", "magic!"])
        let throttle = try XCTUnwrap(run.trace.nodes.first { $0.name == "throttle(quietPeriod:)" })
        XCTAssertEqual(run.trace.events(of: throttle.id).filter { $0.kind == .value }.map(\.text), ["magi", "magic!"])
        XCTAssertEqual(run.environment.calls.filter { $0 == "search" }.count, 2)
        // The "magi" search was still in flight when "magic!" came: flatMap(.latest) interrupted it.
        let fake = try XCTUnwrap(run.trace.nodes.first { $0.label == "fake service" })
        let searches = run.trace.subscriptions.filter { $0.node == fake.id }.prefix(3).map(\.id)
        let firstSearchEvents = run.trace.events.filter { $0.subscription == searches[1] }.map(\.kind)
        XCTAssertEqual(firstSearchEvents, [.interrupted])
    }

    func testTwitterInstantDropsTheAvatarsOfReusedCells() throws {
        let scenario = TwitterInstant()
        let screen = Guarded(TwitterInstantScreen())
        _ = try runVirtually(scenario) { scenario.build(in: $0, screen: screen) }
        let tweets = TwitterInstant.tweets(for: "magic!")
        XCTAssertEqual(screen.value.avatars.keys.sorted(), [0, 1], "the large avatars of rows 2 and 3 were still loading")
        XCTAssertEqual(screen.value.avatars[0]?.url, tweets[0].avatarURL)
        XCTAssertEqual(screen.value.avatars[1]?.url, tweets[1].avatarURL)
    }

    func testTwitterInstantErrorsReachTheErrorBlock() throws {
        let cases: [(TwitterInstant, TwitterError)] = [
            (TwitterInstant(accessGranted: false), .accessDenied),
            (TwitterInstant(accounts: 0), .noTwitterAccounts),
            (TwitterInstant(failureRate: 1), .invalidResponse(status: 500)),
        ]
        for (scenario, expected) in cases {
            let screen = Guarded(TwitterInstantScreen())
            _ = try runVirtually(scenario) { scenario.build(in: $0, screen: screen) }
            XCTAssertEqual(screen.value.error, expected)
            XCTAssertEqual(screen.value.displayedQueries, [])
        }
    }

    /// The benchmark's timing: a shorter quiet period and no simulated latency; `displayed`
    /// hears each result set when the screen shows it.
    func testTwitterInstantTimingIsAdjustableAndDisplayedHearsEachResult() throws {
        let environment = VirtualEnvironment()
        let screen = Guarded(TwitterInstantScreen())
        let heard = Guarded<[String]>([])
        let scenario = TwitterInstant(failureRate: 0, quietPeriod: 0.2, latencyScale: 0)
        let pipeline = scenario.build(in: environment, screen: screen) { search in
            XCTAssertEqual(screen.value.tweets, search.tweets, "heard once the screen shows the tweets")
            heard.modify { $0.append("\(search.query) at \(environment.scheduler.now)") }
        }
        defer { pipeline.dispose() }
        environment.scheduler.advance()  // access is granted at once
        try environment.send("abc", to: "searchText")
        environment.scheduler.advance(by: 0.199)
        XCTAssertEqual(heard.value, [], "still inside the quiet period")
        environment.scheduler.advance(by: 0.001)
        XCTAssertEqual(heard.value, ["abc at 200000000"], "searched and answered the moment the quiet period ends")
        try environment.send("abcd", to: "searchText")
        environment.scheduler.advance(by: 0.2)
        XCTAssertEqual(heard.value, ["abc at 200000000", "abcd at 400000000"])
        XCTAssertEqual(screen.value.displayedQueries, ["abc", "abcd"])
        XCTAssertEqual(screen.value.avatars.count, TwitterInstant.visibleRows, "the avatars load at once too")
    }

    /// The latency scale multiplies the same seeded draws: at half scale the search answers
    /// after half the tutorial's drawn latency.
    func testTwitterInstantLatencyScaleKeepsTheDraws() throws {
        func searchLatency(scale: Double) throws -> Int64 {
            let environment = VirtualEnvironment()
            let shown = Guarded<Int64?>(nil)
            let scenario = TwitterInstant(seed: 7, failureRate: 0, quietPeriod: 0, latencyScale: scale)
            let pipeline = scenario.build(in: environment, screen: Guarded(TwitterInstantScreen())) { _ in
                shown.value = environment.scheduler.now
            }
            defer { pipeline.dispose() }
            environment.scheduler.advance(by: 1)  // access granted
            try environment.send("magic", to: "searchText")
            environment.scheduler.advance(by: 2)
            return (shown.value ?? 0) - 1_000_000_000
        }
        let full = try searchLatency(scale: 1)
        XCTAssertTrue((1_200_000_000...1_400_000_000).contains(full), "the tutorial's 1.2–1.4 s, drew \(full) ns")
        XCTAssertEqual(Double(try searchLatency(scale: 0.5)), Double(full) / 2, accuracy: 1)
        XCTAssertEqual(TwitterInstant(quietPeriod: -1, latencyScale: -2).quietPeriod, 0)
        XCTAssertEqual(TwitterInstant(quietPeriod: -1, latencyScale: -2).latencyScale, 0)
    }

    // MARK: Registration form

    func testRegistrationEnablesSignUpOnlyWhenAllThreeFieldsAreValid() throws {
        let scenario = RegistrationForm()
        let screen = Guarded(RegistrationScreen())
        let run = try runVirtually(scenario) { scenario.build(in: $0, screen: screen) }
        XCTAssertEqual(screen.value.usernameBackground, .white)
        XCTAssertEqual(screen.value.passwordBackground, .white)
        XCTAssertEqual(screen.value.confirmationBackground, .white)
        let enabled = screen.value.signUpEnabled
        XCTAssertEqual(enabled.last, true)
        XCTAssertEqual(enabled.filter { $0 }.count, 1, "enabled once, by the final \"secret\"")
        XCTAssertEqual(run.trace.values(of: "confirmSignal").last, "true")
        XCTAssertEqual(run.trace.values(of: "confirmSignal").dropLast().filter { $0 == "true" }, [])
    }

    func testRegistrationConfirmationNeedsAValidPassword() throws {
        let environment = VirtualEnvironment()
        let screen = Guarded(RegistrationScreen())
        let pipeline = RegistrationForm().build(in: environment, screen: screen)
        defer { pipeline.dispose() }
        try environment.send("bob", to: "username")
        try environment.send("abc", to: "password")
        try environment.send("abc", to: "confirmation")
        XCTAssertEqual(screen.value.confirmationBackground, .yellow, "equal but too short")
        XCTAssertEqual(screen.value.usernameBackground, .yellow)
        try environment.send("bobby", to: "username")
        try environment.send("abcdef", to: "password")
        XCTAssertEqual(screen.value.confirmationBackground, .yellow, "valid but different")
        try environment.send("abcdef", to: "confirmation")
        XCTAssertEqual(screen.value.confirmationBackground, .white)
        XCTAssertEqual(screen.value.signUpEnabled.last, true)
    }

    // MARK: FunctionalReactivePixels

    func testPixelsImportsOnceForBothConsumersAndReloadsTheGallery() throws {
        let scenario = FunctionalReactivePixels()
        let screen = Guarded(PixelsScreen())
        let run = try runVirtually(scenario) { scenario.build(in: $0, screen: screen) }
        let calls = run.environment.calls
        XCTAssertEqual(calls.filter { $0 == "importPhotos" }.count, 1, "publish + autoconnect: one request")
        XCTAssertEqual(calls.filter { $0 == "thumbnail" }.count, FunctionalReactivePixels.pageSize)
        XCTAssertEqual(screen.value.title, "Popular (9)")
        XCTAssertEqual(screen.value.photoCount, 9)
        XCTAssertEqual(screen.value.reloads, 1)
    }

    func testPixelsReusedCellsShowThePhotosFurtherOn() throws {
        let scenario = FunctionalReactivePixels()
        let screen = Guarded(PixelsScreen())
        _ = try runVirtually(scenario) { scenario.build(in: $0, screen: screen) }
        XCTAssertEqual(screen.value.cellPhotos, [0: 7, 1: 8, 2: 9, 3: 4, 4: 5, 5: 6])
        let shown = screen.value.cellImages.keys.sorted().map { screen.value.cellImages[$0]?.url ?? "" }
        XCTAssertEqual(shown, [7, 8, 9, 4, 5, 6].map { "https://500px.example/t/\($0).jpg" },
                       "a reused cell drops the old photo's binding (take(until:)) and shows the new one")
    }

    func testPixelsMissingThumbnailFailsAndIsCaughtLeavingItsCellEmptyUntilReused() throws {
        let scenario = FunctionalReactivePixels()
        let missing = FunctionalReactivePixels.missingThumbnail
        // Before any scrolling: the cell of the missing photo shows nothing, the others theirs.
        let before = Guarded(PixelsScreen())
        let run = try runVirtually(scenario, script: []) { scenario.build(in: $0, screen: before) }
        XCTAssertEqual(before.value.cellPhotos[missing - 1], missing)
        XCTAssertNil(before.value.cellImages[missing - 1])
        XCTAssertEqual(before.value.cellImages.count, FunctionalReactivePixels.visibleCells - 1)
        // The download of the missing thumbnail failed (404), once.
        let thumbnail = try XCTUnwrap(run.trace.nodes.first { $0.label == "thumbnail" })
        let failures = run.trace.events(of: thumbnail.id).filter { $0.kind == .failed }
        XCTAssertEqual(failures.map(\.text), ["RequestFailed(404)"])
        // Scrolling reuses the cell for another photo, which shows.
        let after = Guarded(PixelsScreen())
        _ = try runVirtually(scenario) { scenario.build(in: $0, screen: after) }
        XCTAssertEqual(after.value.cellImages[missing - 1]?.url, FunctionalReactivePixels.thumbnailURL(missing + 6))
    }

    func testPixelsSelectionFetchesDetailsAndTheFullSizeImage() throws {
        let scenario = FunctionalReactivePixels()
        let screen = Guarded(PixelsScreen())
        let run = try runVirtually(scenario) { scenario.build(in: $0, screen: screen) }
        XCTAssertEqual(screen.value.fullSizeDetails?.id, 8)
        XCTAssertEqual(screen.value.fullSizeImage?.url, "https://500px.example/f/8.jpg")
        XCTAssertFalse(screen.value.loading)
        XCTAssertEqual(run.environment.calls.filter { $0 == "photoDetails" || $0 == "fullSizeImage" },
                       ["photoDetails", "fullSizeImage"])
    }

    func testPixelsImportFailureIsCaughtToAnEmptyGallery() throws {
        let scenario = FunctionalReactivePixels(importFails: true)
        let screen = Guarded(PixelsScreen())
        _ = try runVirtually(scenario) { scenario.build(in: $0, screen: screen) }
        XCTAssertEqual(screen.value.photoCount, 0)
        XCTAssertEqual(screen.value.reloads, 0, "completion reloads; a caught failure does not")
        XCTAssertEqual(screen.value.title, "")
        XCTAssertEqual(screen.value.cellPhotos, [:])
    }

    // MARK: Swift search

    func testSwiftSearchThrottlesTheValidTextAndDisplaysItsResults() throws {
        let scenario = SwiftSearch()
        let screen = Guarded(SwiftSearchScreen())
        let run = try runVirtually(scenario) { scenario.build(in: $0, screen: screen) }
        // First valid text at once, the latest at the end of the 0.5 s window, for each burst.
        XCTAssertEqual(screen.value.displayedQueries, ["react", "reactive", "reactive ", "reactive swift"])
        XCTAssertEqual(screen.value.rows, (1...14).map { "somebody \($0)" })
        XCTAssertEqual(run.trace.values(of: "validSearchString").first, "react")
        XCTAssertEqual(run.trace.values(of: "results"), ["5 results", "8 results", "9 results", "14 results"])
    }

    // MARK: Across seeds

    /// The scripts keep their races far from their outcomes, so every seed gives the
    /// tutorial's outputs, not only the default one.
    func testEverySeedGivesTheSameOutcome() throws {
        for seed in UInt64(1)...12 {
            let twitter = TwitterInstant(seed: seed, failureRate: 0)
            let twitterScreen = Guarded(TwitterInstantScreen())
            _ = try runVirtually(twitter) { twitter.build(in: $0, screen: twitterScreen) }
            XCTAssertEqual(twitterScreen.value.displayedQueries, ["magic!"], "seed \(seed)")
            XCTAssertEqual(twitterScreen.value.avatars.keys.sorted(), [0, 1], "seed \(seed)")

            let search = SwiftSearch(seed: seed)
            let searchScreen = Guarded(SwiftSearchScreen())
            _ = try runVirtually(search) { search.build(in: $0, screen: searchScreen) }
            XCTAssertEqual(searchScreen.value.displayedQueries, ["react", "reactive", "reactive ", "reactive swift"],
                           "seed \(seed)")

            let signIn = SignIn(seed: seed)
            let signInScreen = Guarded(SignInScreen())
            _ = try runVirtually(signIn) { signIn.build(in: $0, screen: signInScreen) }
            XCTAssertEqual(signInScreen.value.results, [false, true], "seed \(seed)")

            let pixels = FunctionalReactivePixels(seed: seed)
            let pixelsScreen = Guarded(PixelsScreen())
            _ = try runVirtually(pixels) { pixels.build(in: $0, screen: pixelsScreen) }
            XCTAssertEqual(pixelsScreen.value.fullSizeDetails?.id, 8, "seed \(seed)")
            XCTAssertEqual(pixelsScreen.value.cellImages.count, 6, "seed \(seed)")
        }
    }
}
