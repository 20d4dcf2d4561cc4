import Diagrams
import Foundation
import Signals
import TraceLog
import Recording

/// Drawing figures from traces, as `marbles draw` does: a marble diagram and a pipeline
/// diagram, each from a virtual-time trace recorded here, to SVG.
enum Drawing {
    /// A virtual trace of the core chain with `inputs` values one millisecond apart.
    static func marbleTrace(inputs: Int) throws -> Trace {
        let scheduler = TestScheduler(name: "bench")
        let sink = Sink()
        let bytes = Recorder.record(virtual: scheduler) {
            let input = Core.marblesPipeline(into: sink)
            for value in 0..<inputs {
                scheduler.advance(toNanoseconds: Int64(value) * 1_000_000)
                input.send(value: value)
            }
            input.sendCompleted()
        }
        return try Trace(bytes: bytes, name: "bench marble trace")
    }

    /// A virtual trace of a 200-node pipeline: ten sources, each through eighteen operators,
    /// merged, then nine more; one value sent into each source.
    static func pipelineTrace() throws -> Trace {
        let scheduler = TestScheduler(name: "bench")
        let bytes = Recorder.record(virtual: scheduler) {
            var inputs: [Signal<Int, Never>.Observer] = []
            var branches: [Signal<Int, Never>] = []
            for branch in 0..<10 {
                // Distinct lines: sources are interned by call site.
                let (signal, input) = Signal<Int, Never>.pipe(named: "source \(branch)", line: UInt(1000 + branch))
                inputs.append(input)
                var tail = signal
                for stage in 0..<18 {
                    tail = stage % 2 == 0 ? tail.map { $0 &+ 1 } : tail.filter { $0 >= 0 }
                }
                branches.append(tail)
            }
            var tail = Signal.merge(branches)
            for _ in 0..<9 { tail = tail.map { $0 &* 2 } }
            tail.observeValues { _ in }
            for (index, input) in inputs.enumerated() {
                scheduler.advance(toNanoseconds: Int64(index) * 1_000_000)
                input.send(value: index)
                input.sendCompleted()
            }
        }
        return try Trace(bytes: bytes, name: "bench pipeline trace")
    }

    static func measure(events target: Int, runs: Int, table: inout Table) throws {
        let marbles = try marbleTrace(inputs: target * 2 / 7)
        let pipeline = try pipelineTrace()
        let operators = pipeline.nodes.filter { $0.kind != .sink }.count
        var marbleTimes: [Double] = [], pipelineTimes: [Double] = []
        var marbleBytes = 0, pipelineBytes = 0
        for _ in 0..<runs {
            marbleTimes.append(try seconds {
                let figure = try MarbleFigure(trace: marbles, options: MarbleOptions(selection: .all))
                marbleBytes = MarbleRenderer.svg(figure).utf8.count
            })
            pipelineTimes.append(try seconds {
                pipelineBytes = try PipelineRenderer.render(PipelineGraph(trace: pipeline), format: .svg).count
            })
        }
        let section = "drawing"
        let marbleTime = median(marbleTimes)
        table.add(Row(section: section,
                      figure: "marble diagram of a \(marbles.events.count)-event trace to SVG (\(marbleBytes / 1024) KiB)",
                      value: "\(decimal(marbleTime, 3)) s", target: "< 1 s", met: marbleTime < 1))
        let pipelineTime = median(pipelineTimes)
        table.add(Row(section: section,
                      figure: "pipeline diagram of a \(operators)-node trace to SVG via libgvc dot (\(pipelineBytes / 1024) KiB)",
                      value: "\(decimal(pipelineTime, 3)) s", target: "< 2 s", met: pipelineTime < 2))
    }
}
