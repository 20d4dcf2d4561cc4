import ArgumentParser
import Foundation
import Signals

@main
struct Marbles: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "marbles",
        abstract: "Record, replay and draw reactive event streams.",
        discussion: "Every verb exits 0 on success and 2 on bad input (a usage mistake too); `diff` and `demo` exit 1 when traces disagree.",
        subcommands: [Stats.self, Export.self, PlayCommand.self, RecordCommand.self, DrawCommand.self, DiffCommand.self,
                      DemoCommand.self, ReplayCommand.self]
    )

    /// Parses and runs the verb. A usage mistake (a missing argument, an unknown option) is bad
    /// input like any other and exits 2, not the argument parser's 64; help, and the exit codes
    /// the verbs throw themselves, are left as they are.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
