import Recording

/// Runs `body` with a live recorder attached (stopped when `body` throws too) and returns what
/// it recorded: the async tests' recording.
func recordedAsync(_ body: () async throws -> Void) async throws -> [UInt8] {
    let recorder = Recorder(clock: .real)
    recorder.start()
    do {
        try await body()
    } catch {
        try recorder.stop()
        throw error
    }
    try recorder.stop()
    return recorder.bytes
}
