// One import for a user's app: `import Marbles` brings the operators (Signals), the recorder
// (Recording), the trace model (TraceLog), replay and diff (Replay) and the virtual-time
// environment (MarbleStreams). A test target adds `import MarblesTesting` (golden traces and
// `expectMarbles`, which re-exports this module too). The fine-grained products stay for those
// who want only a part.
@_exported import MarbleStreams
@_exported import Recording
@_exported import Replay
@_exported import Signals
@_exported import TraceLog
