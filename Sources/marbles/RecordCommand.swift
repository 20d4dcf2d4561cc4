import ArgumentParser
import Foundation
import TraceLog
import Tutorials

/// `marbles record --scenario X -o FILE`: one live, recorded run of a tutorial scenario.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Run a tutorial scenario live on real threads and record its trace.",
        discussion: """
        Builds the scenario's pipeline against a live environment (real dispatch queues, \
        fake services with seeded latency and failures), plays the simulated user's script \
        on the main queue at its offsets, and records everything with a real-clock recorder. \
        A run lasts a few seconds. Each script step is printed as it happens.

        Scenarios: \(Scenarios.names.joined(separator: ", ")).

        Exit status: 0 on success, 2 for an unknown scenario or a trace that cannot be written.

        Example:
          marbles record --scenario twitter-instant -o traces/twitter-instant.trace
          marbles record --scenario signin --seed 7 -o /tmp/signin.trace
        """
    )

    @Option(name: .long, help: "The scenario to run: \(Scenarios.names.joined(separator: ", ")).")
    var scenario: String

    @Option(name: [.short, .customLong("output")], help: "The trace file to write (created or replaced).")
    var output: String

    @Option(name: .long, help: "Seed for the script's timing and the fake services' draws (default: the scenario's own).")
    var seed: UInt64?

    @Flag(name: .long, help: "Print only the final line, not each script step.")
    var quiet = false

    func run() throws {
        guard let scenario = Scenarios.named(self.scenario, seed: seed) else {
            throw Self.failure("unknown scenario '\(self.scenario)'; expected one of: \(Scenarios.names.joined(separator: ", "))")
        }
        let quiet = self.quiet
        do {
            let summary = try LiveRunner.record(scenario, to: URL(fileURLWithPath: output)) { step in
                guard !quiet else { return }
                print("  " + String(format: "%5.2f", step.at) + "s  " + step.description)
                // As it happens also when standard output is a pipe (fully buffered otherwise): nil
                // flushes every output stream, and names no C global.
                fflush(nil)
            }
            print("\(scenario.name): \(summary.events) events, \(summary.nodes) nodes, \(summary.hops) thread hops "
                + "→ \(output)")
        } catch let error as TraceError {
            throw Self.failure("\(error)")
        }
    }

    /// Prints `marbles record: error: message` to standard error; the exit status 2 to throw.
    static func failure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("marbles record: error: \(message)\n".utf8))
        return ExitCode(2)
    }
}
