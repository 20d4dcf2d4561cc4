// One import for a user's app: `import Marbles` brings the operators (Signals), the recorder
// (Recording), the trace model (TraceLog), replay and diff (Replay), the virtual-time
// environment (MarbleStreams) and the taps that record AsyncSequence pipelines (AsyncMarbles). A test target adds `import MarblesTesting` (golden traces and
// `expectMarbles`, which re-exports this module too). The fine-grained products stay for those
// who want only a part.
@_exported import AsyncMarbles
@_exported import MarbleStreams
@_exported import Recording
@_exported import Replay
@_exported import Signals
@_exported import TraceLog
