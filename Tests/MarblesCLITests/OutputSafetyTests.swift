import Foundation
import XCTest

/// No verb destroys a file: every verb that writes a file refuses a target that is one of its
/// inputs, writes a device in place instead of replacing it, leaves an existing target as it
/// was when the run fails or the folder is read-only, and stops with exit status 2 when
/// standard output cannot be written.
final class OutputSafetyTests: CommandLineTestCase {
    private static let trace = "traces/signin.trace"
    private static let spec = "diagrams/operators/zip.marbles"
    /// A spec that parses, then fails while it runs, when its first value arrives (after
    /// events were recorded).
    private static let failingSpec = "hot e1 = -a-b|\nout = e1.map(x => x.y.z)\n"

    /// A verb writing one file, with inputs copied into the test's folder under names whose
    /// extensions suit the output (a trace named `t.svg` is still read as a trace), so the
    /// output can name an input directly.
    private struct Writer: Sendable {
        var name: String
        /// Each input's name in the folder and the repository file it is a copy of.
        var inputs: [(name: String, source: String)]
        /// The extension the output needs.
        var outputExtension: String
        /// The command line writing to `output`.
        var arguments: @Sendable (_ output: String) -> [String]
        /// The command line of a run that fails after its output was checked.
        var failing: @Sendable (_ output: String) -> [String]
    }

    private static let writers: [Writer] = [
        Writer(name: "replay", inputs: [("in.trace", trace)], outputExtension: "trace",
               arguments: { ["replay", "in.trace", "--scenario", "signin", "-o", $0] },
               failing: { ["replay", "in.trace", "--scenario", "registration", "-o", $0] }),
        Writer(name: "draw --marble", inputs: [("t.svg", trace)], outputExtension: "svg",
               arguments: { ["draw", "t.svg", "-o", $0] },
               failing: { ["draw", "bad.trace", "-o", $0] }),
        Writer(name: "draw --marble .txt", inputs: [("t.txt", trace)], outputExtension: "txt",
               arguments: { ["draw", "t.txt", "-o", $0] },
               failing: { ["draw", "bad.trace", "-o", $0] }),
        Writer(name: "draw --pipeline .dot", inputs: [("t.dot", trace)], outputExtension: "dot",
               arguments: { ["draw", "t.dot", "--pipeline", "-o", $0] },
               failing: { ["draw", "bad.trace", "--pipeline", "-o", $0] }),
        Writer(name: "draw --pipeline .png", inputs: [("t.png", trace)], outputExtension: "png",
               arguments: { ["draw", "t.png", "--pipeline", "-o", $0] },
               failing: { ["draw", "bad.trace", "--pipeline", "-o", $0] }),
        Writer(name: "draw spec .pdf", inputs: [("s.marbles", spec)], outputExtension: "pdf",
               arguments: { ["draw", "s.marbles", "-o", $0] },
               failing: { ["draw", "failing.marbles", "-o", $0] }),
        Writer(name: "export", inputs: [("t.json", trace)], outputExtension: "json",
               arguments: { ["export", "t.json", "-o", $0] },
               failing: { ["export", "bad.trace", "-o", $0] }),
        Writer(name: "diff --draw onto A", inputs: [("a.svg", trace), ("b.trace", trace)], outputExtension: "svg",
               arguments: { ["diff", "a.svg", "b.trace", "--draw", $0] },
               failing: { ["diff", "b.trace", "bad.trace", "--draw", $0] }),
        Writer(name: "diff --draw onto B", inputs: [("a.trace", trace), ("b.txt", trace)], outputExtension: "txt",
               arguments: { ["diff", "a.trace", "b.txt", "--draw", $0] },
               failing: { ["diff", "a.trace", "bad.trace", "--draw", $0] }),
        Writer(name: "play --trace", inputs: [("s.marbles", spec)], outputExtension: "marbles",
               arguments: { ["play", "s.marbles", "--trace", $0] },
               failing: { ["play", "failing.marbles", "--trace", $0] }),
        Writer(name: "play --draw", inputs: [("s.svg", spec)], outputExtension: "svg",
               arguments: { ["play", "s.svg", "--draw", $0] },
               failing: { ["play", "failing.marbles", "--draw", $0] }),
    ]

    /// Copies the writer's inputs into the test's folder, with a malformed trace and a
    /// failing spec beside them.
    private func prepare(_ writer: Writer) throws {
        for input in writer.inputs where !FileManager.default.fileExists(atPath: path(input.name)) {
            try copy(input.source, to: input.name)
        }
        if !FileManager.default.fileExists(atPath: path("bad.trace")) {
            // Malformed in the middle: a reader has started (an export has begun writing) when it fails.
            let lines = try String(decoding: Data(contentsOf: top.appendingPathComponent(Self.trace)), as: UTF8.self)
                .split(separator: "\n")
            try write(lines.prefix(40).joined(separator: "\n") + "\n{\"type\":\"event\",\"seq\":\n"
                + lines.dropFirst(40).joined(separator: "\n") + "\n", to: "bad.trace")
            try write(Self.failingSpec, to: "failing.marbles")
        }
    }

    /// The names in the test's folder that are left-over temporary files.
    private func temporaryFiles(in folder: String = "") throws -> [String] {
        try names(in: folder).filter { $0.hasPrefix(".") && $0.contains(".marbles-") }
    }

    func testAnOutputThatIsAnInputIsRefusedBeforeAnythingIsWritten() throws {
        for writer in Self.writers {
            try prepare(writer)
            for input in writer.inputs.map(\.name) {
                let symbolic = "symbolic-\(input).\(writer.outputExtension)", hard = "hard-\(input).\(writer.outputExtension)"
                try? FileManager.default.removeItem(atPath: path(symbolic))
                try? FileManager.default.removeItem(atPath: path(hard))
                try FileManager.default.createSymbolicLink(atPath: path(symbolic), withDestinationPath: input)
                try FileManager.default.linkItem(atPath: path(input), toPath: path(hard))
                var targets = [symbolic, hard]
                if input.hasSuffix("." + writer.outputExtension) { targets += [input, "./" + input] }
                let before = try bytes(input), namesBefore = try names()
                for target in targets {
                    let run = try marbles(writer.arguments(target))
                    XCTAssertEqual(run.status, 2, "\(writer.name) -o \(target): \(run.err)")
                    XCTAssertTrue(run.err.contains("is the same file as the input \(input); nothing was written"),
                                  "\(writer.name) -o \(target): \(run.err)")
                    XCTAssertEqual(try bytes(input), before, "\(writer.name) -o \(target) changed its input")
                    XCTAssertEqual(try names(), namesBefore, "\(writer.name) -o \(target) left a file")
                }
            }
        }
    }

    func testTheSpecReadFromStandardInputCannotBeTheTraceWritten() throws {
        try copy(Self.spec, to: "s.marbles")
        let before = try bytes("s.marbles")
        let run = try marbles(["play", "-", "--trace", "s.marbles"], input: "s.marbles")
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.err.contains("s.marbles: error: --trace is the same file as the input <stdin>"), run.err)
        XCTAssertEqual(try bytes("s.marbles"), before)
        let fine = try marbles(["play", "-", "--trace", "out.trace"], input: "s.marbles")
        XCTAssertEqual(fine.status, 0, fine.err)
        XCTAssertTrue(try String(decoding: bytes("out.trace"), as: UTF8.self).hasPrefix(#"{"type":"header""#))
    }

    func testTwoOutputsOfOneRunCannotBeTheSameFile() throws {
        try copy(Self.spec, to: "s.marbles")
        try write("old", to: "x.svg")
        try FileManager.default.linkItem(atPath: path("x.svg"), toPath: path("y.svg"))
        for (trace, figure) in [("x.svg", "x.svg"), ("./x.svg", "x.svg"), ("y.svg", "x.svg"), ("new.svg", "./new.svg")] {
            let run = try marbles(["play", "s.marbles", "--trace", trace, "--draw", figure])
            XCTAssertEqual(run.status, 2, "\(trace) \(figure)")
            XCTAssertTrue(run.err.contains("error: --trace and --draw name the same file; nothing was written"), run.err)
        }
        XCTAssertEqual(try bytes("x.svg"), Data("old".utf8))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("new.svg")))
    }

    func testADeviceTargetIsWrittenInPlaceAndNeverReplaced() throws {
        for writer in Self.writers {
            try prepare(writer)
            let null = "null-\(writer.inputs[0].name).\(writer.outputExtension)"
            let full = "full-\(writer.inputs[0].name).\(writer.outputExtension)"
            try makeDevice(null, minor: 3)
            try makeDevice(full, minor: 7)
            let written = try marbles(writer.arguments(null))
            XCTAssertEqual(written.status, 0, "\(writer.name) -o \(null): \(written.err)")
            XCTAssertTrue(isCharacterDevice(null), "\(writer.name) replaced the device \(null)")
            let refused = try marbles(writer.arguments(full))
            XCTAssertEqual(refused.status, 2, "\(writer.name) -o \(full)")
            XCTAssertTrue(refused.err.contains("\(full): error: cannot write: ") && refused.err.contains("No space left on device"),
                          "\(writer.name): \(refused.err)")
            XCTAssertTrue(isCharacterDevice(full), "\(writer.name) replaced the device \(full)")
            XCTAssertEqual(try temporaryFiles(), [])
        }
    }

    func testOtherKindsOfTargetAreRefusedWithTheirKind() throws {
        try copy(Self.trace, to: "in.trace")
        try FileManager.default.createDirectory(atPath: path("folder.svg"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: path("dangling.svg"), withDestinationPath: "nowhere.svg")
        let cases = [
            ("folder.svg", "folder.svg: error: cannot write: it is a directory; -o needs a file"),
            ("dangling.svg", "dangling.svg: error: cannot write: it is a symbolic link to a file that does not exist"),
            ("missing/x.svg", "missing/x.svg: error: cannot write: the folder missing does not exist"),
            ("in.trace/x.svg", "in.trace/x.svg: error: cannot write: Not a directory"),
        ]
        for (target, message) in [("new/", "new/: error: cannot write: -o needs a file name, not a folder"),
                                  ("", ": error: cannot write: -o needs a file name, not an empty one")] {
            let run = try marbles(["replay", "in.trace", "--scenario", "signin", "-o", target])
            XCTAssertEqual(run.status, 2, target)
            XCTAssertTrue(run.err.contains(message), run.err)
            XCTAssertEqual(run.out, "", "nothing runs")
        }
        for (target, message) in cases {
            let run = try marbles(["draw", "in.trace", "-o", target])
            XCTAssertEqual(run.status, 2, target)
            XCTAssertTrue(run.err.contains(message), run.err)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("nowhere.svg")))
        if mknod(path("block.svg"), S_IFBLK | 0o600, Self.device(major: 7, minor: 0)) == 0 {
            let run = try marbles(["draw", "in.trace", "-o", "block.svg"])
            XCTAssertEqual(run.status, 2)
            XCTAssertTrue(run.err.contains("block.svg: error: cannot write: it is a block device"), run.err)
        }
    }

    func testAFailingRunLeavesAnExistingTargetAsItWas() throws {
        for writer in Self.writers {
            try prepare(writer)
            let target = "existing.\(writer.outputExtension)"
            try write("the old bytes\n", to: target)
            let run = try marbles(writer.failing(target))
            XCTAssertEqual(run.status, 2, "\(writer.name): \(run.err)")
            XCTAssertEqual(try bytes(target), Data("the old bytes\n".utf8), "\(writer.name) changed the target: \(run.err)")
            let absent = "absent.\(writer.outputExtension)"
            XCTAssertEqual(try marbles(writer.failing(absent)).status, 2)
            XCTAssertFalse(FileManager.default.fileExists(atPath: path(absent)), "\(writer.name) left a partial file")
            XCTAssertEqual(try temporaryFiles(), [], writer.name)
        }
    }

    func testAFullFilesystemLeavesAnExistingTargetAsItWas() throws {
        guard geteuid() == 0 else { throw XCTSkip("mounting a tiny filesystem needs root") }
        try FileManager.default.createDirectory(atPath: path("tiny"), withIntermediateDirectories: false)
        guard try system("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", path("tiny")]) == 0 else {
            throw XCTSkip("cannot mount a tiny tmpfs here to fill it")
        }
        addTeardownBlock { [path = path("tiny")] in _ = try? self.system("/bin/umount", [path]) }
        var cases = Self.writers.map { writer in (writer.name, writer.outputExtension, writer.arguments) }
        cases.append(("record", "trace", { ["record", "--scenario", "swift-search", "--quiet", "-o", $0] }))
        for (name, outputExtension, arguments) in cases {
            if let writer = Self.writers.first(where: { $0.name == name }) { try prepare(writer) }
            let target = "tiny/x.\(outputExtension)"
            try write("the old bytes\n", to: target)
            // Fill every block left, so the first byte of any new file finds the disk full.
            let filler = try XCTUnwrap(FileHandle(forWritingAtPath: {
                _ = FileManager.default.createFile(atPath: path("tiny/filler"), contents: nil)
                return path("tiny/filler")
            }()))
            while (try? filler.write(contentsOf: Data(count: 4096))) != nil {}
            try filler.close()
            let run = try marbles(arguments(target))
            XCTAssertEqual(run.status, 2, "\(name): \(run.err)")
            XCTAssertTrue(run.err.contains("x.\(outputExtension): error: cannot write: ") && run.err.contains("No space left on device"),
                          "\(name): \(run.err)")
            XCTAssertEqual(try bytes(target), Data("the old bytes\n".utf8), name)
            XCTAssertEqual(try temporaryFiles(in: "tiny"), [], name)
            try FileManager.default.removeItem(atPath: path("tiny/filler"))
        }
    }

    /// Runs a system tool; its exit status.
    private func system(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    func testAReadOnlyFolderIsReportedAndItsFilesKept() throws {
        let asNobody = try requireReadOnlyFolders()
        try FileManager.default.createDirectory(atPath: path("ro"), withIntermediateDirectories: false)
        for writer in Self.writers {
            try prepare(writer)
            let target = "ro/x.\(writer.outputExtension)"
            try write("the old bytes\n", to: target)
            XCTAssertEqual(chmod(path("ro"), 0o555), 0)
            for name in [target, "ro/new.\(writer.outputExtension)"] {
                let run = try marbles(writer.arguments(name), asNobody: asNobody)
                XCTAssertEqual(run.status, 2, "\(writer.name) -o \(name)")
                XCTAssertTrue(run.err.contains("cannot write: cannot create a file in the folder")
                    && run.err.contains("ro: Permission denied"), "\(writer.name): \(run.err)")
            }
            XCTAssertEqual(chmod(path("ro"), 0o755), 0)
            XCTAssertEqual(try bytes(target), Data("the old bytes\n".utf8), writer.name)
            XCTAssertFalse(FileManager.default.fileExists(atPath: path("ro/new.\(writer.outputExtension)")), writer.name)
            XCTAssertEqual(try temporaryFiles(in: "ro"), [], writer.name)
        }
        let record = try marbles(["record", "--scenario", "swift-search", "-o", "ro/x.trace"], asNobody: asNobody)
        XCTAssertEqual(record.status, 2)
        XCTAssertTrue(record.err.contains("ro: Permission denied"), record.err)
    }

    func testAFullStandardOutputIsAnErrorNotASuccessOrATrap() throws {
        try copy(Self.trace, to: "in.trace")
        try copy(Self.spec, to: "s.marbles")
        let runs = [
            ["stats", "in.trace"], ["stats", "--json", "in.trace"], ["diff", "in.trace", "in.trace"],
            ["diff", "--json", "in.trace", "in.trace"], ["draw", "in.trace"], ["play", "s.marbles"],
            ["play", "--json", "s.marbles"], ["replay", "in.trace", "--scenario", "signin", "-o", "out.trace"],
            ["export", "in.trace", "-o", "out.json"], ["play", "s.marbles", "--trace", "out.trace", "--draw", "out.svg"],
            ["diff", "in.trace", "in.trace", "--draw", "out.svg"], ["--help"], ["stats", "--help"],
        ]
        for arguments in runs {
            let run = try marbles(arguments, output: "/dev/full")
            XCTAssertEqual(run.status, 2, arguments.joined(separator: " "))
            XCTAssertTrue(run.err.contains("marbles: error: cannot write to standard output: No space left on device"),
                          "\(arguments): \(run.err)")
        }
        // What was printed is part of the run: a run that could not say so writes no files.
        XCTAssertEqual(try names(), ["in.trace", "s.marbles"])
    }

    func testARecordingKilledOrFailingLeavesTheTargetAsItWas() throws {
        try write("the old recording\n", to: "killed.trace")
        try write("the old recording\n", to: "printing.trace")
        try makeDevice("full.trace", minor: 7)
        // The runs at once, to spend one scenario's duration.
        let printing = try start(["record", "--scenario", "swift-search", "-o", "printing.trace"], output: "/dev/full")
        let printingNew = try start(["record", "--scenario", "swift-search", "-o", "new.trace"], output: "/dev/full")
        let device = try start(["record", "--scenario", "swift-search", "--quiet", "-o", "full.trace"])
        let killed = try start(["record", "--scenario", "swift-search", "-o", "killed.trace"])
        // The first step is printed once the recording is under way.
        let firstLine = try readLine(of: killed)
        XCTAssertTrue(firstLine.contains("s  "), firstLine)
        kill(killed.processIdentifier, SIGKILL)
        killed.waitUntilExit()
        XCTAssertEqual(try bytes("killed.trace"), Data("the old recording\n".utf8))
        let partial = try temporaryFiles().filter { $0.hasPrefix(".killed.trace.marbles-") }
        let all = try names()
        XCTAssertEqual(partial.count, 1, "the killed run's recording is kept beside the target: \(all)")
        for name in partial { try FileManager.default.removeItem(atPath: path(name)) }

        printing.waitUntilExit()
        XCTAssertEqual(printing.terminationStatus, 2)
        XCTAssertEqual(try bytes("printing.trace"), Data("the old recording\n".utf8))
        // A new trace is written in place (a kill leaves it readable), and removed when the run fails.
        printingNew.waitUntilExit()
        XCTAssertEqual(printingNew.terminationStatus, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("new.trace")))
        device.waitUntilExit()
        let message = String(decoding: (device.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data(),
                             as: UTF8.self)
        XCTAssertEqual(device.terminationStatus, 2, message)
        XCTAssertTrue(message.contains("full.trace: error: cannot write: ") && message.contains("No space left on device"), message)
        XCTAssertTrue(isCharacterDevice("full.trace"))
        XCTAssertEqual(try temporaryFiles(), [])
    }

    func testTheDemoReplacesARecordingOnlyOnceItHasFinished() throws {
        try FileManager.default.createDirectory(atPath: path("traces"), withIntermediateDirectories: false)
        try write("the committed recording\n", to: "traces/swift-search.trace")
        let demo = try start(["demo", "--scenario", "swift-search", "--root", directory.path])
        let firstLine = try readLine(of: demo)
        XCTAssertTrue(firstLine.contains("recording live"), firstLine)
        kill(demo.processIdentifier, SIGKILL)
        demo.waitUntilExit()
        XCTAssertEqual(try bytes("traces/swift-search.trace"), Data("the committed recording\n".utf8))
        let left = try names(in: "traces")
        XCTAssertEqual(try temporaryFiles(in: "traces").count, 1, left.joined(separator: " "))

        // Interrupted, it removes its temporary file too.
        for name in try temporaryFiles(in: "traces") { try FileManager.default.removeItem(atPath: path("traces/" + name)) }
        for signal in [SIGINT, SIGTERM] {
            let interrupted = try start(["demo", "--scenario", "swift-search", "--root", directory.path])
            XCTAssertTrue(try readLine(of: interrupted).contains("recording live"))
            kill(interrupted.processIdentifier, signal)
            interrupted.waitUntilExit()
            XCTAssertEqual(interrupted.terminationReason, .uncaughtSignal)
            XCTAssertEqual(interrupted.terminationStatus, signal)
            XCTAssertEqual(try bytes("traces/swift-search.trace"), Data("the committed recording\n".utf8))
            XCTAssertEqual(try temporaryFiles(in: "traces"), [], "signal \(signal)")
        }

        // Replaying a malformed recording writes none of the derived files.
        try write("the old replay\n", to: "traces/swift-search.replay.trace")
        let failed = try marbles(["demo", "--scenario", "swift-search", "--from-recordings", "--root", directory.path])
        XCTAssertEqual(failed.status, 2)
        XCTAssertTrue(failed.err.contains("traces/swift-search.trace:1:1: error:"), failed.err)
        XCTAssertEqual(try bytes("traces/swift-search.replay.trace"), Data("the old replay\n".utf8))
    }

    /// The first line `process` prints on standard output (blocking until it does).
    private func readLine(of process: Process) throws -> String {
        let handle = try XCTUnwrap(process.standardOutput as? Pipe).fileHandleForReading
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        return String(decoding: line, as: UTF8.self)
    }
}
