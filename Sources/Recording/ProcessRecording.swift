import CProcessRecording
import Foundation
import Locks
import Signals
import TraceLog

/// A recording of a whole program, asked for from outside it: a program that links
/// `Recording` (any app or tool using Marbles) and is started with `MARBLES_TRACE=FILE` in its
/// environment records every `Signals` pipeline it runs into `FILE`, from before `main` to its
/// end, with no code of its own. `marbles record -- PROGRAM ARGS` starts a program that way.
///
/// ```sh
/// MARBLES_TRACE=run.trace swift run my-app
/// marbles stats run.trace
/// ```
///
/// The program itself needs no code for it; it may ask whether it is being recorded, or end
/// the recording early (before a long idle tail it does not want in the trace):
///
/// ```swift
/// if ProcessRecording.isRecording {   // started with MARBLES_TRACE=FILE
///     ProcessRecording.stop()           // the summary is written and the file closed now
/// }
/// ```
///
/// The recorder starts when the program is loaded (a constructor in `CProcessRecording`) and
/// writes as a `Recorder(to:)` does: a new file is written in place, flushed at least every
/// 100 ms, so a program killed with `kill -9` leaves its trace up to the last flush. It stops,
/// with the trace's summary, when the program exits (`exit`, or `main` returning) and when
/// SIGINT, SIGTERM or SIGHUP ends it — for each of those signals the program has not taken over
/// itself: the recording is finished, then the signal ends the program as it would have.
///
/// The recording takes what the program's own recorders take too, if it starts any (not
/// what it records in virtual time: replays, tests); an event both record keeps its causes in
/// the program's own trace, and may lose them in this one.
///
/// The variable is removed from the program's environment once read, so the programs it
/// starts in turn do not write into the same file. A path that cannot be written is reported
/// on standard error and the program runs unrecorded.
public enum ProcessRecording {
    /// The environment variable that names the trace file: `MARBLES_TRACE`.
    public static let variable = "MARBLES_TRACE"

    /// The recorder started from the environment, until it stops.
    private static let recorder = Protected<Recorder?>(nil)
    /// The pipe a signal handler writes the signal's number into, for the thread that
    /// finishes the recording (a handler may only do async-signal-safe work).
    nonisolated(unsafe) private static var signalPipe: (read: Int32, write: Int32) = (-1, -1)

    /// Whether a recording asked for by `MARBLES_TRACE` is running in this process.
    public static var isRecording: Bool { recorder.current != nil }

    /// Starts the recording `MARBLES_TRACE` names, if it is set and none runs yet; what the
    /// load-time constructor calls. Idempotent.
    public static func startFromEnvironment() {
        marbles_process_recording_linked()
        guard let value = getenv(variable), value.pointee != 0 else { return }
        // The file's bytes as given: a name that is not UTF-8 names that file, not another.
        let path = PathName(cString: value)
        unsetenv(variable)
        guard recorder.current == nil else { return }
        let started: Recorder
        do {
            started = try Recorder(to: path, url: URL(fileURLWithPath: path.shown), clock: .real)
        } catch {
            let line = "marbles: \(variable)=\(path.shown): cannot record: \(error); the program runs unrecorded\n"
            _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            return
        }
        started.core.takesEveryRealScope = true
        recorder.modify { $0 = started }
        started.start()
        atexit { ProcessRecording.stop() }
        installSignalHandlers()
    }

    /// Stops the recording (summary written, file closed); later calls do nothing. A failure
    /// to write is reported on standard error.
    public static func stop() {
        guard let running = recorder.modify({ current -> Recorder? in
            defer { current = nil }
            return current
        }) else { return }
        do {
            try running.stop()
        } catch {
            let line = "marbles: \(variable): \(error)\n"
            _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        }
    }

    /// For SIGINT, SIGTERM and SIGHUP still at their default action: a handler that hands
    /// the signal to a thread which finishes the recording, then ends the program by the
    /// signal as it would have ended.
    private static func installSignalHandlers() {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        signalPipe = (fds[0], fds[1])
        var handled = false
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            var current = sigaction()
            guard sigaction(signal, nil, &current) == 0, current.__sigaction_handler.sa_handler == nil else { continue }
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                var byte = UInt8(truncatingIfNeeded: signal)
                _ = write(ProcessRecording.signalPipe.write, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            if sigaction(signal, &action, nil) == 0 { handled = true }
        }
        guard handled else { return }
        let watcher = Thread {
            var byte: UInt8 = 0
            while read(ProcessRecording.signalPipe.read, &byte, 1) < 0 && errno == EINTR {}
            let signal = Int32(byte)
            ProcessRecording.stop()
            Foundation.signal(signal, SIG_DFL)
            raise(signal)
        }
        watcher.name = "marbles.process-recording"
        watcher.start()
    }
}

/// What the load-time constructor calls (`CProcessRecording`).
@_cdecl("marbles_process_recording_start")
public func marblesProcessRecordingStart() {
    ProcessRecording.startFromEnvironment()
}
