import ArgumentParser
import Signals

@main
struct Marbles: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "marbles",
        abstract: "Record, replay and draw reactive event streams.",
        subcommands: [Stats.self, Export.self, PlayCommand.self, RecordCommand.self, DrawCommand.self, DiffCommand.self,
                      DemoCommand.self, ReplayCommand.self]
    )
}
