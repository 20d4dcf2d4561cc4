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

        The trace file: a new one is written directly, so a run killed with kill -9 leaves \
        the trace up to its last flush (at most 100 ms old) under the name asked for, and a \
        run that fails removes it. An existing one is replaced only once the run has \
        finished: the recording goes to a temporary file beside it (.NAME.marbles-XXXXXXXX, \
        where a run killed with kill -9 leaves its partial trace; an interrupted run removes \
        it), so a failed or killed run leaves it as it was. A character device or named pipe (/dev/null) is written in place; a \
        directory, a socket or a block device is refused before anything runs.

        Ctrl-C (SIGINT), SIGTERM or SIGHUP ends the run early and keeps a whole trace, with \
        its summary, up to that moment (exit status 128 plus the signal's number: 130 for \
        Ctrl-C); a second one ends the process at once, as the help above says of an \
        interrupted run.

        Exit status: 0 on success, 2 for an unknown scenario, a trace that cannot be written \
        or standard output that cannot be written, 130 (143, 129) when stopped early by \
        SIGINT (SIGTERM, SIGHUP).

        Example:
          marbles record --scenario twitter-instant -o traces/twitter-instant.trace
          marbles record --scenario signin --seed 7 -o /tmp/signin.trace
        """
    )

    @OptionGroup var scenarioOption: ScenarioOption

    @OptionGroup var output: OutputOption

    @Option(name: .long, help: "Seed for the script's timing and the fake services' draws (default: the scenario's own).")
    var seed: UInt64?

    @Flag(name: .long, help: "Print only the final line, not each script step.")
    var quiet = false

    func run() throws {
        let scenario = scenarioOption.scenario(seed: seed)
        let file = try OutputFile(output.output, option: "-o")
        let pending = try file.beginRecording()
        let quiet = self.quiet
        let failedStep = Guarded<CLIError?>(nil)
        let summary: SummaryRecord
        do {
            // Ctrl-C (or SIGTERM, SIGHUP) once ends the run early with a whole trace; twice, at once.
            Interruption.interceptOnce()
            summary = try LiveRunner.record(scenario, into: pending.recorder(),
                                            stopRequested: { Interruption.interrupted != nil }) { step in
                guard !quiet, failedStep.value == nil else { return }
                do {
                    try Console.print("  " + String(format: "%5.2f", step.at) + "s  " + step.description + "\n")
                } catch {
                    failedStep.value = error as? CLIError
                }
            }
        } catch let error as TraceError {
            throw pending.failure(error.message)
        }
        if let error = failedStep.value { throw error }
        try Console.print("\(scenario.name): \(summary.events) events, \(summary.nodes) nodes, \(summary.hops) thread hops "
            + "→ \(output.output)\n")
        try pending.commit()
        if let signal = Interruption.interrupted {
            let name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "SIGHUP"
            throw CLIError.stopped(by: signal, "marbles: recording stopped early by \(name): \(output.output) holds "
                + "the run up to then, whole, with its summary")
        }
    }
}
