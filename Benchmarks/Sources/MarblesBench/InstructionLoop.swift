import Foundation
import Recording
import Signals

/// The loop `Benchmarks/instructions.sh` runs under callgrind, which counts instructions (the
/// same for the same binary and inputs, however loaded the machine): `count` values of one
/// payload through the core chain, with no recorder or recording to a file (JSON Lines, or the
/// binary encoding with `binary`). The script runs it
/// both ways and divides the difference by the events recorded, which this prints: the
/// instructions a recorded event costs on every thread, the writer's formatting included.
enum InstructionLoop {
    static func run(_ choice: PayloadChoice, recording: Bool, binary: Bool = false, count: Int, directory: URL) throws {
        switch choice {
        case .int: try run(Int.self, recording: recording, binary: binary, count: count, directory: directory)
        case .string: try run(String.self, recording: recording, binary: binary, count: count, directory: directory)
        case .struct: try run(Reading.self, recording: recording, binary: binary, count: count, directory: directory)
        case .enum: try run(Message.self, recording: recording, binary: binary, count: count, directory: directory)
        case .optional: try run(Int?.self, recording: recording, binary: binary, count: count, directory: directory)
        }
    }

    static func run<P: Payload>(_: P.Type, recording: Bool, binary: Bool, count: Int, directory: URL) throws {
        let sink = Sink()
        let input = Core.marblesPipeline(P.self, into: sink)
        let url = directory.appendingPathComponent("marbles-bench-instructions.\(binary ? "mtrace" : "trace")")
        defer { try? FileManager.default.removeItem(at: url) }
        let recorder = recording ? try Recorder(to: url) : nil
        recorder?.start()
        for index in 0..<count { input.send(value: P.make(index)) }
        let events = try recorder?.stop().events ?? 0
        input.sendCompleted()
        print("\(P.label): \(count) values, \(events) events recorded, checksum \(sink.checksum)")
    }
}
