import Foundation
import XCTest

/// A test running the built `marbles` executable as a child process, in a temporary folder of
/// its own (the child's current folder, removed afterwards).
class CommandLineTestCase: XCTestCase {
    /// The repository's top folder.
    let top = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    private(set) var directory: URL!

    /// What a run of `marbles` did.
    struct Run {
        var status: Int32
        var out: String
        var err: String
    }

    /// The user id of `nobody`, to run a child without root's right to write anywhere.
    static let nobody = "65534"

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
    }

    override func tearDownWithError() throws {
        // A test may leave a folder read-only; make it removable again.
        if let names = FileManager.default.enumerator(atPath: directory.path) {
            for case let name as String in names {
                _ = chmod(path(name), 0o755)
            }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The `marbles` built next to this test bundle.
    var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("marbles")
    }

    /// Runs `marbles arguments` in the test's folder. `input` is a file for standard input,
    /// `output` a file standard output is written to instead of being captured, and
    /// `asNobody` runs the child as the user nobody (through `setpriv`; only root may).
    func marbles(_ arguments: [String], input: String? = nil, output: String? = nil,
                 asNobody: Bool = false) throws -> Run {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            XCTFail("no marbles executable at \(executable.path); build with `swift build --build-tests`")
            return Run(status: -1, out: "", err: "")
        }
        let process = try start(arguments, input: input, output: output, asNobody: asNobody)
        let out = process.standardOutput as? Pipe, err = process.standardError as? Pipe
        let outData = out?.fileHandleForReading.readDataToEndOfFile() ?? Data()
        let errData = err?.fileHandleForReading.readDataToEndOfFile() ?? Data()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self),
                   err: String(decoding: errData, as: UTF8.self))
    }

    /// Starts `marbles arguments` in the test's folder with standard output and error on
    /// pipes (or standard output to the file `output`).
    func start(_ arguments: [String], input: String? = nil, output: String? = nil,
               asNobody: Bool = false) throws -> Process {
        let process = Process()
        if asNobody {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.currentDirectoryURL = directory
        if let input { process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: path(input))) }
        if let output {
            process.standardOutput = try XCTUnwrap(FileHandle(forWritingAtPath: output))
        } else {
            process.standardOutput = Pipe()
        }
        process.standardError = Pipe()
        try process.run()
        return process
    }

    /// The absolute path of `name` in the test's folder.
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Writes `text` to `name` in the test's folder.
    func write(_ text: String, to name: String) throws {
        try Data(text.utf8).write(to: directory.appendingPathComponent(name))
    }

    /// Copies the repository file `source` to `name` in the test's folder.
    func copy(_ source: String, to name: String) throws {
        try FileManager.default.copyItem(at: top.appendingPathComponent(source), to: directory.appendingPathComponent(name))
    }

    /// The bytes of `name` in the test's folder.
    func bytes(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// The names in the test's folder (or its subfolder `folder`), hidden ones included.
    func names(in folder: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path(folder)).sorted()
    }

    /// Whether `name` in the test's folder is a character device.
    func isCharacterDevice(_ name: String) -> Bool {
        var status = stat()
        return lstat(path(name), &status) == 0 && status.st_mode & S_IFMT == S_IFCHR
    }

    /// Makes a character device node `name` in the test's folder with the numbers of
    /// /dev/null (1, 3) or /dev/full (1, 7); skips the test where device nodes cannot be made.
    func makeDevice(_ name: String, minor: UInt32) throws {
        guard mknod(path(name), S_IFCHR | 0o666, Self.device(major: 1, minor: minor)) == 0 else {
            throw XCTSkip("cannot make a device node with mknod here (\(String(cString: strerror(errno)))); "
                + "run the suite as root to test device targets")
        }
    }

    /// A device number (`makedev`, a C macro Swift does not import) for numbers below 256.
    static func device(major: UInt32, minor: UInt32) -> dev_t {
        #if os(Linux)
        return dev_t(major << 8 | minor)
        #else
        return dev_t(major << 24 | minor)
        #endif
    }

    /// Skips the test unless a child can run without the right to write to a read-only
    /// folder: as a user other than root, or as root through `setpriv` as nobody.
    func requireReadOnlyFolders() throws -> Bool {
        guard geteuid() == 0 else { return false }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
              try marbles(["--help"], asNobody: true).status == 0 else {
            throw XCTSkip("running as root without setpriv (or nobody cannot run marbles): root writes into any folder, "
                + "so a read-only folder cannot be tested")
        }
        return true
    }
}
