import Signals
import TestSupport

/// Builds and starts the pipeline into `sink`: one call site for live and replay, so the sink
/// is one node in both. It has a file of its own so that the sink's call site, which a kept live
/// trace records (`MARBLES_FIDELITY_FROM`), does not move when the checks are edited.
func startGeneratedPipeline(_ builder: GeneratedPipelineBuilder, into sink: Outcome<Int>) -> Disposable {
    builder.build().start { sink.observe($0) }
}
