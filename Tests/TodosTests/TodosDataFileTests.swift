import Foundation
import ReduxSwift
import Testing

@testable import todos

/// What the user is told when the data directory or the data file is not what `todos` expects:
/// one line in the user's words, never the library's API, and nothing lost.
@Suite struct TodosDataFileTests {
    /// Words of the library's API that an end user must never read.
    private static let libraryWords = ["ReduxSwift", "StateArchive", "setAside", "restore(default:)"]

    private func expectNoLibraryWords(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for word in Self.libraryWords {
            #expect(!text.contains(word), "\(text)", sourceLocation: sourceLocation)
        }
    }

    /// An archive written by the app at `schemaVersion`.
    private func writeArchive(_ todos: TodosProcess, schemaVersion: Int) throws {
        try FileManager.default.createDirectory(at: todos.dataDirectory, withIntermediateDirectories: true)
        let state =
            #"{"todos":[{"id":1,"text":"from the future","isCompleted":false}],"filter":"all","nextID":2}"#
        try Data(#"{"schemaVersion":\#(schemaVersion),"state":\#(state)}"#.utf8).write(to: todos.archiveURL)
    }

    private func fileNames(in directory: URL) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
    }

    @Test(arguments: [["list"], ["add", "x"], []])
    func aDataDirThatIsARegularFileIsOneLineAndExitCode2(command: [String]) async throws {
        let todos = TodosProcess()
        try FileManager.default.createDirectory(at: todos.dataDirectory, withIntermediateDirectories: true)
        let file = todos.dataDirectory.appendingPathComponent("notes.txt")
        try Data("mine\n".utf8).write(to: file)

        let outcome = await todos.run(
            ["--data-dir", file.path] + command, input: "add y\n", useDataDir: false)
        #expect(outcome.status == 2)
        #expect(outcome.output.isEmpty)
        #expect(
            outcome.errorLines == [
                "todos: cannot use \(file.path) as the data directory: it is not a directory"
            ])
        expectNoLibraryWords(outcome.errors)
        #expect(FileManager.default.contents(atPath: file.path) == Data("mine\n".utf8))
    }

    @Test func aDataDirInsideARegularFileNamesTheFile() async throws {
        let todos = TodosProcess()
        try FileManager.default.createDirectory(at: todos.dataDirectory, withIntermediateDirectories: true)
        let file = todos.dataDirectory.appendingPathComponent("notes.txt")
        try Data("mine\n".utf8).write(to: file)
        let inside = file.appendingPathComponent("todos")

        let outcome = await todos.run(["--data-dir", inside.path, "list"], useDataDir: false)
        #expect(outcome.status == 2)
        #expect(
            outcome.errorLines == [
                "todos: cannot create the data directory \(inside.path): \(file.path) is not a directory"
            ])
    }

    @Test func aFailedSaveIsReportedOnce() async throws {
        let todos = TodosProcess()
        _ = await todos.run(["add", "keep me"])
        let before = todos.archiveBytes
        // A save writes `.todos.json.<pid>.<n>.tmp` beside the file, then renames it; a directory
        // already there makes it fail, even for root, who may write anywhere. `exec` keeps the
        // shell's pid, so the shell can put them in the way of the saves of the `todos` it becomes.
        let cannotWrite = #"""
            for n in 1 2 3 4 5 6 7 8; do mkdir "$TODOS_DATA/.todos.json.$$.$n.tmp" || exit 99; done
            exec "$@"
            """#
        let environment = ["TODOS_DATA": todos.dataDirectory.path]

        let command = await todos.run(["add", "lost"], environment: environment, shell: cannotWrite)
        #expect(command.status == 1)
        #expect(command.output.isEmpty)
        #expect(command.errorLines.count == 1, "\(command.errors)")
        #expect(command.errors.hasPrefix("todos: cannot save \(todos.archiveURL.path)"), "\(command.errors)")
        expectNoLibraryWords(command.errors)

        let session = await todos.run(
            [], input: "add lost\nlist\n", environment: environment, shell: cannotWrite)
        #expect(session.status == 1)
        #expect(session.errorLines.count == 1, "\(session.errors)")
        expectNoLibraryWords(session.errors)
        #expect(todos.archiveBytes == before)
    }

    @Test func theSavePolicyLeavesEverySaveToTheCommandThatReportsIt() {
        // A timer's save would retry a failed save between commands and report it again.
        #expect(Console.savePolicy == SavePolicy(idleDelay: .infinity, maximumDelay: .infinity))
    }

    @Test(arguments: [["list"], ["add", "x"]])
    func aDataFileFromANewerVersionIsLeftUntouched(command: [String]) async throws {
        let todos = TodosProcess()
        try writeArchive(todos, schemaVersion: 2)
        let before = todos.archiveBytes

        let outcome = await todos.run(command)
        #expect(outcome.status == 1)
        #expect(outcome.output.isEmpty)
        #expect(outcome.errorLines.count == 1, "\(outcome.errors)")
        #expect(
            outcome.errors.contains("\(todos.archiveURL.path) was saved by a newer version of todos"),
            "\(outcome.errors)")
        #expect(outcome.errors.contains("left untouched"), "\(outcome.errors)")
        #expect(!outcome.errors.contains("corrupt"))
        expectNoLibraryWords(outcome.errors)
        #expect(todos.archiveBytes == before)
        #expect(try fileNames(in: todos.dataDirectory) == ["todos.json", "todos.lock"])
    }

    @Test func aDamagedDataFileIsKeptAsideAndTheAppStartsEmpty() async throws {
        let todos = TodosProcess()
        try FileManager.default.createDirectory(at: todos.dataDirectory, withIntermediateDirectories: true)
        try Data("{\"schemaVersion\":1,\"state\":{\"tod".utf8).write(to: todos.archiveURL)
        let outcome = await todos.run(["list"])
        #expect(outcome.status == 0)
        #expect(outcome.outputLines == ["No todos."])
        #expect(outcome.errorLines.count == 1, "\(outcome.errors)")
        #expect(outcome.errors.hasPrefix("todos: cannot load \(todos.archiveURL.path)"), "\(outcome.errors)")
        #expect(
            outcome.errors.contains("It was kept at \(todos.archiveURL.path).corrupt-"), "\(outcome.errors)")
        #expect(outcome.errors.contains("todos starts with an empty list"), "\(outcome.errors)")
        expectNoLibraryWords(outcome.errors)
        let names = try fileNames(in: todos.dataDirectory)
        #expect(names.contains { $0.hasPrefix("todos.json.corrupt-") })
    }

    @Test func aDamagedFileThatCannotBeMovedAsideIsLeftAndTheLaunchStops() throws {
        let backend = FakeBackend(bytes: Data("{\"schemaVersion\":1,\"sta".utf8), setAsideErrno: EACCES)
        var warnings: [String] = []
        let error = #expect(throws: CommandError.self) {
            try DataFile.restore(from: StateArchive(backend: backend)) { warnings.append($0) }
        }
        #expect(error?.exitCode == 1)
        let message = error?.description ?? ""
        #expect(message.hasPrefix("cannot load /data/todos.json"), "\(message)")
        #expect(message.contains("cannot be moved aside either: "), "\(message)")
        #expect(message.contains("left untouched"), "\(message)")
        expectNoLibraryWords(message)
        #expect(warnings.isEmpty)
        #expect(backend.setAsideCalls == 1)
    }

    @Test func aFileTheSystemRefusesToReadIsNotMovedAside() throws {
        let backend = FakeBackend(readErrno: EACCES)
        let error = #expect(throws: CommandError.self) {
            try DataFile.restore(from: StateArchive(backend: backend)) { _ in }
        }
        #expect(error?.exitCode == 1)
        #expect(error?.description.contains("left untouched") == true, "\(String(describing: error))")
        #expect(backend.setAsideCalls == 0)
    }
}

/// A data file in memory whose reads and moves fail as told.
private final class FakeBackend: ArchiveBackend, @unchecked Sendable {
    // `@unchecked Sendable`: `calls` is only touched while `lock` is held; the rest is constant.
    let location = "/data/todos.json"
    private let bytes: Data?
    private let readErrno: Int32?
    private let setAsideErrno: Int32?
    private let lock = NSLock()
    private var calls = 0

    init(bytes: Data? = nil, readErrno: Int32? = nil, setAsideErrno: Int32? = nil) {
        self.bytes = bytes
        self.readErrno = readErrno
        self.setAsideErrno = setAsideErrno
    }

    var setAsideCalls: Int { lock.withLock { calls } }

    func read(limit: Int) throws(PersistenceError) -> Data? {
        if let readErrno { throw failure(.load, "open", readErrno) }
        return bytes
    }

    func write(_ data: Data) throws(PersistenceError) {
        throw failure(.save, "write", EROFS)
    }

    func setAside(suffix: String) throws(PersistenceError) -> String? {
        lock.withLock { calls += 1 }
        if let setAsideErrno { throw failure(.setAside, "rename", setAsideErrno) }
        return location + suffix
    }

    private func failure(_ stage: PersistenceError.Stage, _ call: String, _ code: Int32) -> PersistenceError {
        PersistenceError(
            .system(call: call, errno: code, message: String(cString: strerror(code))), stage: stage,
            location: location)
    }
}
