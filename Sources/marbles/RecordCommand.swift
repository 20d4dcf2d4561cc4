import ArgumentParser
import Foundation
import Recording
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

        Its encoding goes by its name: a FILE named *.mtrace is written in the binary \
        encoding (checksummed chunks; the writer formats no text but the values, so it keeps \
        up with busier pipelines, and the file is smaller), any other in JSON Lines, the open \
        format people and JSON tools read. Every verb reads both; 'marbles convert' turns one \
        into the other. A killed binary recording keeps every chunk written, one at least \
        every 100 ms.

        Ctrl-C (SIGINT), SIGTERM or SIGHUP ends the run early and keeps a whole trace, with \
        its summary, up to that moment (exit status 128 plus the signal's number: 130 for \
        Ctrl-C); a second one ends the process at once, as the help above says of an \
        interrupted run.

        Exit status: 0 on success, 2 for an unknown scenario, a trace that cannot be written \
        or standard output that cannot be written, 130 (143, 129) when stopped early by \
        SIGINT (SIGTERM, SIGHUP).

        Your own program: 'marbles record -o FILE -- PROGRAM ARGS' runs PROGRAM with \
        MARBLES_TRACE=FILE in its environment, which makes any program linking Marbles' \
        Recording module record every Signals pipeline it runs, from before main to its exit \
        (or to SIGINT, SIGTERM or SIGHUP, after which the trace is finished and the signal \
        ends the program), with no code of its own; setting the variable yourself does the \
        same. The program's output is its own; marbles prints one line on standard error when \
        it ends and exits with the program's status (128 plus the signal's number when a \
        signal ended it), or 2 when it wrote no trace.

        Example:
          marbles record --scenario twitter-instant -o traces/twitter-instant.trace
          marbles record --scenario signin --seed 7 -o /tmp/signin.trace
          marbles record -o upload.trace -- swift run my-app --retries 3
          marbles record -o busy.mtrace -- ./my-server
        """
    )

    @Option(name: .customLong("scenario"), help: ArgumentHelp("The tutorial scenario whose pipeline runs.", valueName: "name"))
    var scenarioChoice: ScenarioChoice?

    @Argument(parsing: .postTerminator, help: ArgumentHelp(
        "After --: your own program and its arguments, run with MARBLES_TRACE set (instead of --scenario).",
        valueName: "program"))
    var command: [String] = []

    @OptionGroup var output: OutputOption

    @Option(name: .long, help: "Seed for the script's timing and the fake services' draws (default: the scenario's own).")
    var seed: UInt64?

    @Flag(name: .long, help: "Print only the final line, not each script step.")
    var quiet = false

    func validate() throws {
        if scenarioChoice == nil && command.isEmpty {
            throw ValidationError("give --scenario NAME, or -- PROGRAM ARGS to record your own program")
        }
        if scenarioChoice != nil && !command.isEmpty {
            throw ValidationError("give --scenario NAME or -- PROGRAM ARGS, not both")
        }
        if !command.isEmpty && seed != nil { throw ValidationError("--seed chooses a tutorial scenario's draws; a program has its own") }
        if !command.isEmpty && output.output.is("-") {
            throw ValidationError("-o - cannot take a program's trace: its standard output is the program's own; give a file")
        }
    }

    func run() throws {
        guard let choice = scenarioChoice else { return try recordProgram() }
        let scenario = seed.flatMap { Scenarios.named(choice.scenario.name, seed: $0) } ?? choice.scenario
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
            + "→ \(output.output.shown)\n")
        try pending.commit()
        if let signal = Interruption.interrupted {
            let name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "SIGHUP"
            throw CLIError.stopped(by: signal, "marbles: recording stopped early by \(name): \(output.output.shown) holds "
                + "the run up to then, whole, with its summary")
        }
    }

    /// Runs the program after `--` with `MARBLES_TRACE` naming the output (absolute), waits
    /// for it, and reports what it recorded.
    private func recordProgram() throws {
        // Checked as every output is (a folder, a device, a read-only file are refused); the
        // program writes it, as a Recorder(to:) does: a new file in place (which that recorder
        // locks), an existing one replaced when it stops, locked here meanwhile, so a second
        // run to the same file is refused rather than one trace lost.
        _ = try OutputFile(output.output, option: "-o")
        var target = output.output
        if !target.isAbsolute {
            guard let folder = getcwd(nil, 0) else { throw CLIError.file(output.output, "cannot write: \(errnoReason())") }
            defer { free(folder) }
            target = PathName(cString: folder).appending(target)
        }
        var existing = stat()
        let lock = target.withCString({ stat($0, &existing) }) == 0 && existing.st_mode & S_IFMT == S_IFREG
            ? try OutputFile.lockExisting(target, for: output.output) : nil
        defer { if let lock { close(lock) } }
        // The program and its arguments byte for byte as given (a file name among them that is
        // not UTF-8 too).
        let arguments = command.map { PathName(argument: $0) }
        let status: Int32
        do {
            // The program gets Ctrl-C too (one process group); marbles waits for it to finish
            // its trace rather than ending first.
            Interruption.interceptOnce()
            status = try ProgramRun.run(arguments, setting: ProcessRecording.variable, to: target.bytes)
        } catch let error as ProgramRun.Failure {
            throw CLIError.file(arguments[0], "cannot run: \(error.reason); nothing was recorded")
        }
        let program = arguments[0].lastComponent.shown
        var summary: SummaryRecord?
        do {
            try TraceReader(path: target, name: output.output.shown).forEach { record in
                if case let .summary(closing) = record { summary = closing }
            }
        } catch {
            throw CLIError.file(output.output, "\(program) wrote no readable trace (\(error)): a program records only when it "
                + "links Marbles' Recording module (the Marbles or Recording product), not Signals alone")
        }
        let ended = status >= 128 ? "ended by signal \(status - 128)" : "exited \(status)"
        guard let summary else {
            throw CLIError.file(output.output, "\(program) \(ended) before finishing its trace: it holds what was flushed, "
                + "without a summary (a program killed with SIGKILL, or one that handles SIGTERM itself and exits with _exit)")
        }
        Console.error("\(program) \(ended): \(summary.events) events, \(summary.nodes) nodes, \(summary.hops) thread hops "
            + "→ \(output.output)")
        if status != 0 { throw CLIError.exit(status) }
    }
}

/// A program run as a child, with its own standard input, output and error.
enum ProgramRun {
    struct Failure: Error {
        let reason: String
    }

    /// Runs `arguments` (the program found on PATH as a shell finds it) with this process's
    /// environment and `variable` set to `value`, each byte as given, and returns its exit
    /// status, or 128 plus the signal that ended it.
    static func run(_ arguments: [PathName], setting variable: String, to value: [UInt8]) throws -> Int32 {
        let argv = arguments.map { $0.withCString { strdup($0) } } + [nil]
        var environment: [UnsafeMutablePointer<CChar>?] = []
        var entry = environ
        while let variableEntry = entry.pointee {
            if !PathName(cString: variableEntry).bytes.starts(with: Array((variable + "=").utf8)) {
                environment.append(strdup(variableEntry))
            }
            entry += 1
        }
        environment.append(PathName(bytes: Array((variable + "=").utf8) + value).withCString { strdup($0) })
        let envp = environment + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, argv[0]!, nil, nil, argv, envp)
        guard spawned == 0 else { throw Failure(reason: String(cString: strerror(spawned))) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Failure(reason: errnoReason()) }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, spelt out (macros Swift does not import).
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
