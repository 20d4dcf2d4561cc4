import ArgumentParser
import Replay
import Foundation
import TraceLog
import Tutorials

/// A tutorial scenario named on the command line: the argument parser refuses any other
/// name and lists the known ones.
struct ScenarioChoice: ExpressibleByArgument {
    /// The scenario, with its own seed.
    let scenario: Scenario

    init?(argument: String) {
        guard let scenario = Scenarios.named(argument) else { return nil }
        self.scenario = scenario
    }

    static var allValueStrings: [String] { Scenarios.names }
}

/// `--scenario NAME`: the tutorial scenario a verb runs (`record`) or replays (`replay`).
struct ScenarioOption: ParsableArguments {
    @Option(name: .customLong("scenario"), help: ArgumentHelp("The tutorial scenario whose pipeline runs.", valueName: "name"))
    var choice: ScenarioChoice

    /// The scenario seeded with `seed`, or with its own seed when nil.
    func scenario(seed: UInt64? = nil) -> Scenario {
        // The name came from `Scenarios`, so it finds the scenario again.
        seed.flatMap { Scenarios.named(choice.scenario.name, seed: $0) } ?? choice.scenario
    }
}

/// `-o FILE`: the one file a verb writes (see `OutputFile` for how it is written).
struct OutputOption: ParsableArguments {
    @Option(name: [.short, .customLong("output")], help: ArgumentHelp(
        "The file to write: created, or replaced once complete.", valueName: "file"))
    var output: PathName
}

/// How two traces are compared (`diff`, and `view` of two traces): what time shift and
/// which moved code are not differences.
struct ComparisonOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Largest time shift that is not a difference: a number with ns, us, ms or s (bare numbers are ns).",
        valueName: "duration"), transform: Self.duration)
    var timeTolerance: Int64?

    @Flag(name: .long, help: "A node whose code only moved, to another line or another file, is not a difference (as for golden traces).")
    var ignoreLineShifts = false

    /// Whether either option was given.
    var isSet: Bool { timeTolerance != nil || ignoreLineShifts }

    /// A `--time-tolerance` value in nanoseconds.
    @Sendable private static func duration(_ text: String) throws -> Int64 {
        guard let nanoseconds = TraceDiff.parseDuration(text) else {
            throw ValidationError("expected a duration such as 0, 500us, 2ms or 1.5s")
        }
        return nanoseconds
    }
}

/// The format of a figure, from its file's extension.
enum FigureFormat: String, ExpressibleByArgument, CaseIterable {
    case svg, png, pdf, txt, dot

    /// The format `path`'s extension names, if any.
    init?(path: PathName) {
        self.init(rawValue: path.fileExtension.shown.lowercased())
    }
}

/// How long a replay's hop onto a scheduler waits.
enum HopLatencyChoice: String, ExpressibleByArgument, CaseIterable {
    case zero, recorded
}

/// What `replay` does with a call whose request the trace never recorded.
enum UnrecordedRequestsChoice: String, ExpressibleByArgument, CaseIterable {
    /// Stop with an error naming the call, its request and the nearest recorded requests.
    case error
    /// Let the call complete at once without a value, with a warning per call.
    case empty
}

/// What `export` writes.
enum ExportFormat: String, ExpressibleByArgument, CaseIterable {
    /// Chrome trace-event JSON, which Perfetto and chrome://tracing open.
    case perfetto
}

/// A file named on the command line, taken as the bytes it was given: the argument parser
/// parses `String`s, so `main` hands it each argument as `PathName.argumentText` (a byte that
/// is not UTF-8 as a private character), and this turns a file argument back into its exact
/// bytes.
extension PathName: ExpressibleByArgument {}

/// The value of an option that is text, not a file name (a title, node names): its argument,
/// which `main` gave the parser as `PathName.argumentText`, decoded. Bytes that are not UTF-8
/// are refused: the value is shown as text, where U+FFFD in their place would not say what
/// was given.
@Sendable func textArgument(_ argument: String) throws -> String {
    guard let text = PathName(argument: argument).text else {
        // The parser's message quotes the value, its bytes shown as `\xFF` (`main`).
        throw ValidationError("expected UTF-8 text, which is shown as text, not used as a file name")
    }
    return text
}
