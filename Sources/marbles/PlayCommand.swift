import ArgumentParser
import Foundation
import Replay
import Signals

/// `marbles play SPEC`: runs a `.marbles` spec with the real operators in virtual time.
struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Run a .marbles spec with the real operators in virtual time and show the streams.",
        discussion: """
        A spec declares input streams in marble notation and derives streams from them with \
        operators; every operator runs the Signals implementation on a virtual-time scheduler.

          # comment
          frame 1ms                          # one frame's duration (1ms when absent)
          hot  e1 = --a--^--b----c--|        # '^' is frame 0 of a hot stream
          cold e2 = --x--y|                  # a cold stream starts on each subscription
          values e1 = {"a": 1, "b": 2, "c": 3}
          error  e1 = "boom"                 # the value of '#' ("error" when absent)
          out  = e1.map(x => x * 10).filter(x => x > 10)
          sw   = e1.switchMap(v => e2.map(i => i + v))
          unsubscribe out = -------!

        Marbles: '-' one frame, other characters are values, '|' complete, '#' error, \
        '(ab)' same frame, '10ms ' time progression. Expressions: lambdas (x => ...), \
        + - * / %, comparisons, && || !, ?:, String(x), parseInt(x), named arguments \
        (retry(count: 2, delay: 4)); a bare number as a duration means milliseconds.

        Output: an aligned marble diagram (inputs with their subscriptions, then derived \
        streams, then a legend), or JSON with --json. Errors in the spec are reported as \
        file:line:column with the line and a caret; the exit status is then 2.
        """
    )

    @Argument(help: "The spec file, or '-' to read standard input.")
    var spec: String

    @Flag(help: "Print JSON: {\"streams\": {NAME: {\"events\": [{\"t\": MS, \"kind\", \"value\"}]}}, \"subscriptions\": {INPUT: [{\"subscribe\": MS, \"unsubscribe\": MS|null}]}}.")
    var json = false

    func run() throws {
        let name = spec == "-" ? "<stdin>" : spec
        let text: String
        if spec == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            guard let data = FileManager.default.contents(atPath: spec) else {
                throw fail("\(spec): error: cannot read the spec file")
            }
            guard let decoded = String(data: data, encoding: .utf8) else {
                throw fail("\(spec): error: expected UTF-8 text")
            }
            text = decoded
        }
        let result: SpecResult
        do {
            result = try SpecDocument.parse(text, file: name).run()
        } catch let error as SpecError {
            throw fail(error.description)
        }
        print(json ? result.json() : result.diagram(), terminator: "")
    }

    /// Reports bad input on standard error; the exit status is 2.
    private func fail(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return ExitCode(2)
    }
}
