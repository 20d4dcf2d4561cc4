import Foundation
import Signals
import TraceLog
import Recording

/// Runs a scenario live: real threads, the simulated user's script on the main queue at its
/// offsets, the fake services on their own queues, everything recorded by a real-clock
/// `Recorder`.
public enum LiveRunner {
    /// Records one live run of `scenario` into a new trace at `url` and returns the
    /// recorder's summary. Call on the main thread: it pumps the main queue (`MainLoop`) for
    /// the scenario's `duration`. `progress` hears each script step as it happens.
    @discardableResult
    public static func record(_ scenario: Scenario, to url: URL,
                              progress: @escaping @Sendable (ScriptStep) -> Void = { _ in }) throws -> SummaryRecord {
        try record(scenario, into: Recorder(to: url, clock: .real), progress: progress)
    }

    /// Runs `scenario` live, as `record(_:to:progress:)` does, recording into `recorder`
    /// (a recorder on the real clock, not yet started), which it starts and stops. When
    /// `stopRequested` turns true (checked as the main queue is pumped) the run ends early,
    /// as it ends at its duration: the inputs complete, the pipeline is torn down and the
    /// recording stopped, so the trace is whole, with its summary, up to that moment.
    @discardableResult
    public static func record(_ scenario: Scenario, into recorder: Recorder,
                              stopRequested: @escaping () -> Bool = { false },
                              progress: @escaping @Sendable (ScriptStep) -> Void = { _ in }) throws -> SummaryRecord {
        let environment = LiveEnvironment()
        recorder.start()
        let pipeline = scenario.build(in: environment)
        let running = Guarded(true)
        let failure = Guarded<ScriptError?>(nil)
        play(scenario.script()[...], from: .now(), while: running, into: environment, failure: failure,
             progress: progress)
        let end = Date().addingTimeInterval(scenario.duration)
        MainLoop.run(until: { Date() >= end || stopRequested() }, timeout: scenario.duration + 1)
        // The user leaves the screen: the inputs complete, and what that completes downstream
        // (through hops onto the main queue) is delivered before the pipeline is torn down.
        running.value = false
        environment.completeInputs()
        let settled = Date().addingTimeInterval(0.05)
        MainLoop.run(until: { Date() >= settled }, timeout: 1)
        // The teardown is recorded, as a replay records it, so both traces end the same way.
        pipeline.dispose()
        let summary = try recorder.stop()
        if let failure = failure.value { throw failure }
        return summary
    }

    /// Runs the steps on the main queue at their offsets from `start`, one after another:
    /// each step schedules the next, so steps due at the same moment keep their order. Steps
    /// still due once `running` is false (the run is over) are dropped. A step whose send is
    /// refused is kept in `failure` (the first one), which the run throws once it has ended.
    private static func play(_ steps: ArraySlice<ScriptStep>, from start: DispatchWallTime, while running: Guarded<Bool>,
                             into environment: LiveEnvironment, failure: Guarded<ScriptError?>,
                             progress: @escaping @Sendable (ScriptStep) -> Void) {
        guard let step = steps.first else { return }
        DispatchQueue.main.asyncAfter(wallDeadline: start + .nanoseconds(Int(step.at * 1e9))) {
            guard running.value else { return }
            Recorder.mark(step.description)
            do {
                try step.perform(environment)
            } catch {
                if failure.value == nil { failure.value = ScriptError(step: step, error: error) }
            }
            progress(step)
            play(steps.dropFirst(), from: start, while: running, into: environment, failure: failure, progress: progress)
        }
    }
}
