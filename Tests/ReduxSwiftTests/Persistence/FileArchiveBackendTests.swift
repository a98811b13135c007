import Foundation
import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct FileArchiveBackendTests {
    let directory = TemporaryDirectory()

    @Test func aMissingFileReadsAsNothing() throws {
        let backend = FileArchiveBackend(url: directory.file("absent.json"))
        #expect(try backend.read(limit: 1024) == nil)
    }

    @Test func writingCreatesMissingDirectoriesAndAFileOnlyItsOwnerCanRead() throws {
        let url = directory.url.appendingPathComponent("a/b/c/state.json")
        let backend = FileArchiveBackend(url: url)
        try backend.write(Data("hello".utf8))
        #expect(try backend.read(limit: 1024) == Data("hello".utf8))

        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let created = try FileManager.default.attributesOfItem(
            atPath: directory.url.appendingPathComponent("a").path)
        #expect((created[.posixPermissions] as? NSNumber)?.intValue == 0o700)
    }

    @Test func aWriteReplacesTheWholeFileAndLeavesNoTemporaryFile() throws {
        let backend = FileArchiveBackend(url: directory.file("state.json"))
        try backend.write(Data(repeating: UInt8(ascii: "a"), count: 10_000))
        try backend.write(Data("short".utf8))
        #expect(try backend.read(limit: 1 << 20) == Data("short".utf8))
        #expect(directory.names == ["state.json"])
    }

    @Test func aReadRefusesMoreThanTheLimit() throws {
        let backend = FileArchiveBackend(url: directory.file("state.json"))
        try backend.write(Data(count: 2048))
        let error = #expect(throws: PersistenceError.self) { try backend.read(limit: 1024) }
        #expect(error?.kind == .tooLarge(bytes: 2048, limit: 1024))
        #expect(try backend.read(limit: 2048)?.count == 2048)
    }

    @Test func aTemporaryFileOfADeadProcessIsRemovedOnTheNextRead() throws {
        // No process has this pid: Linux caps pids at 4,194,304.
        let abandoned = directory.file(".state.json.99999999.1.tmp")
        let foreign = directory.file(".other.json.99999999.1.tmp")
        let mine = directory.file(".state.json.\(getpid()).999.tmp")
        for url in [abandoned, foreign, mine] { try Data("partial".utf8).write(to: url) }
        let backend = FileArchiveBackend(url: directory.file("state.json"))
        #expect(try backend.read(limit: 1024) == nil)
        #expect(!FileManager.default.fileExists(atPath: abandoned.path))
        #expect(
            FileManager.default.fileExists(atPath: foreign.path), "another archive's files are not touched")
        #expect(FileManager.default.fileExists(atPath: mine.path), "a live process's file is not touched")
    }

    /// Writes a temporary file named after `pid` and last modified `age` seconds ago.
    private func temporaryFile(pid: pid_t, number: Int, age: TimeInterval) throws -> URL {
        let url = directory.file(".state.json.\(pid).\(number).tmp")
        try Data("partial".utf8).write(to: url)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -age)], ofItemAtPath: url.path)
        return url
    }

    @Test func aTemporaryFileAnHourOldIsRemovedEvenIfItsProcessIsAlive() throws {
        // The parent (the test runner's launcher) and this process are alive: `kill` finds them,
        // or, in a sandbox, answers EPERM. Only the age can tell these files are abandoned.
        let parentOld = try temporaryFile(pid: getppid(), number: 1, age: 2 * 3600)
        let parentFresh = try temporaryFile(pid: getppid(), number: 2, age: 60)
        let mineOld = try temporaryFile(pid: getpid(), number: 998, age: 3601 + 60)
        let mineFresh = try temporaryFile(pid: getpid(), number: 999, age: 0)
        let fromTheFuture = try temporaryFile(pid: getppid(), number: 3, age: -2 * 3600)
        let backend = FileArchiveBackend(url: directory.file("state.json"))
        #expect(try backend.read(limit: 1024) == nil)
        for old in [parentOld, mineOld, fromTheFuture] {
            #expect(!FileManager.default.fileExists(atPath: old.path), "\(old.lastPathComponent) is removed")
        }
        for fresh in [parentFresh, mineFresh] {
            #expect(FileManager.default.fileExists(atPath: fresh.path), "\(fresh.lastPathComponent) is kept")
        }
    }

    @Test func inASandboxWhereKillAnswersEPERMOnlyTheAgeRemovesATemporaryFile() throws {
        // No process has this pid, but a sandboxed `kill` cannot say so.
        let old = try temporaryFile(pid: 99_999_999, number: 1, age: 3600 + 60)
        let fresh = try temporaryFile(pid: 99_999_999, number: 2, age: 3600 - 60)
        let backend = FileArchiveBackend(url: directory.file("state.json"))
        let asked = Recorder<pid_t>()
        backend.removeAbandonedTemporaryFiles(now: Date()) { pid in
            asked.append(pid)
            return EPERM
        }
        #expect(asked.values == [99_999_999, 99_999_999])
        #expect(!FileManager.default.fileExists(atPath: old.path))
        #expect(FileManager.default.fileExists(atPath: fresh.path))

        backend.removeAbandonedTemporaryFiles(now: Date()) { _ in ESRCH }
        #expect(!FileManager.default.fileExists(atPath: fresh.path), "a process known gone frees it at once")
    }

    @Test func settingAsideRenamesTheFileAndNeverReplacesAnother() throws {
        let backend = FileArchiveBackend(url: directory.file("state.json"))
        #expect(try backend.setAside(suffix: ".corrupt-x") == nil)
        try backend.write(Data("one".utf8))
        #expect(try backend.setAside(suffix: ".corrupt-x") == directory.file("state.json.corrupt-x").path)
        try backend.write(Data("two".utf8))
        #expect(try backend.setAside(suffix: ".corrupt-x") == directory.file("state.json.corrupt-x-2").path)
        #expect(try Data(contentsOf: directory.file("state.json.corrupt-x")) == Data("one".utf8))
        #expect(try Data(contentsOf: directory.file("state.json.corrupt-x-2")) == Data("two".utf8))
        #expect(try backend.read(limit: 1024) == nil)
    }

    @Test func theDefaultDirectoryFollowsXDGOnLinux() {
        let url = FileArchiveBackend.defaultDirectory(forApplication: "reduxswift-test")
        #expect(url.lastPathComponent == "reduxswift-test")
        #if os(Linux)
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            #expect(url.deletingLastPathComponent().path == URL(fileURLWithPath: xdg).path)
        } else {
            #expect(url.path.hasSuffix("/.local/share/reduxswift-test"))
        }
        #endif
    }

    /// A tvOS device lets an app write only to Caches and tmp: Application Support cannot be
    /// created there, though the simulator allows it.
    @Test func onTVOSTheDefaultDirectoryIsUnderCachesAndElsewhereUnderApplicationSupport() {
        for platform in Platform.allCases {
            let searchPath = FileArchiveBackend.appleSearchPath(for: platform)
            if platform == .tvOS {
                #expect(searchPath.directory == .cachesDirectory)
                #expect(searchPath.fallback == "Library/Caches")
            } else {
                #expect(searchPath.directory == .applicationSupportDirectory, "\(platform)")
                #expect(searchPath.fallback == "Library/Application Support", "\(platform)")
            }
        }
        #if canImport(Darwin)
        let directory = FileArchiveBackend.appleSearchPath(for: .current).directory
        let base = FileManager.default.urls(for: directory, in: .userDomainMask).first
        #expect(
            FileArchiveBackend.defaultDirectory(forApplication: "reduxswift-test").deletingLastPathComponent()
                .standardizedFileURL == base?.standardizedFileURL)
        #endif
    }

    /// A name that is not one path component would name the shared data directory itself, or a
    /// directory outside it.
    @Test func aDefaultDirectoryNameThatIsNotOnePathComponentIsAProgrammerError() async {
        await #expect(processExitsWith: .failure) {
            _ = FileArchiveBackend.defaultDirectory(forApplication: "")
        }
        await #expect(processExitsWith: .failure) {
            _ = FileArchiveBackend.defaultDirectory(forApplication: ".")
        }
        await #expect(processExitsWith: .failure) {
            _ = FileArchiveBackend.defaultDirectory(forApplication: "..")
        }
        await #expect(processExitsWith: .failure) {
            _ = FileArchiveBackend.defaultDirectory(forApplication: "../../etc")
        }
        await #expect(processExitsWith: .failure) {
            _ = FileArchiveBackend.defaultDirectory(forApplication: "a/b")
        }
        await #expect(processExitsWith: .failure) {
            _ = FileArchiveBackend.defaultDirectory(forApplication: "a\u{0}b")
        }
    }

    @Test func aDefaultDirectoryNameMayHoldDotsAndSpaces() {
        for name in ["My App", "com.example.app", "...", ".hidden"] {
            #expect(FileArchiveBackend.defaultDirectory(forApplication: name).lastPathComponent == name)
        }
    }

    // MARK: Files that are not regular files

    /// Loads through `archive` on another thread; if it has not returned after 10 seconds, opens
    /// the FIFO at `fifo` for writing to release the reader, and records the hang.
    private func loadWithoutHanging(
        _ archive: StateArchive<TestState>, fifo: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> PersistenceError? {
        let outcome = finishing(within: 10) { () -> PersistenceError? in
            do throws(PersistenceError) {
                _ = try archive.load()
                return nil
            } catch {
                return error
            }
        }
        guard let outcome else {
            Issue.record("load() blocked on the FIFO", sourceLocation: sourceLocation)
            let writer = open(fifo, O_WRONLY)
            if writer >= 0 { close(writer) }
            return nil
        }
        return outcome
    }

    @Test func aFIFOAtTheArchivePathIsRefusedWithoutBlocking() throws {
        let path = directory.file("state.json").path
        #expect(mkfifo(path, 0o600) == 0)
        let archive = StateArchive<TestState>(file: directory.file("state.json"))
        let error = loadWithoutHanging(archive, fifo: path)
        #expect(error?.kind == .notRegularFile(fileType: "a FIFO"))
        #expect(error?.description.contains("FIFO") == true)

        let restored = finishing(within: 10) {
            archive.restore(default: TestState(counter: 4), onFailure: { _, _ in })
        }
        if restored == nil {
            let writer = open(path, O_WRONLY)
            if writer >= 0 { close(writer) }
        }
        #expect(restored == TestState(counter: 4))
        // Not an archive's bytes, and not the app's: it is left as it is.
        #expect(directory.names == ["state.json"])
    }

    @Test func aSymlinkToAnEndlessDeviceIsRefusedUnread() throws {
        try FileManager.default.createSymbolicLink(
            atPath: directory.file("state.json").path, withDestinationPath: "/dev/zero")
        let backend = FileArchiveBackend(url: directory.file("state.json"))
        let error = #expect(throws: PersistenceError.self) { try backend.read(limit: 1 << 20) }
        #expect(error?.kind == .notRegularFile(fileType: "a character device"))
    }

    @Test(arguments: [false, true])
    func aSaveOverAFIFOIsRefusedAndKeepsIt(throughASymlink: Bool) throws {
        let fifo = directory.file(throughASymlink ? "pipe" : "state.json").path
        #expect(mkfifo(fifo, 0o600) == 0)
        if throughASymlink {
            try FileManager.default.createSymbolicLink(
                atPath: directory.file("state.json").path, withDestinationPath: "pipe")
        }
        let archive = StateArchive<TestState>(file: directory.file("state.json"))
        let error = #expect(throws: PersistenceError.self) { try archive.save(TestState(counter: 1)) }
        #expect(error?.stage == .save)
        #expect(error?.kind == .notRegularFile(fileType: "a FIFO"))
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the FIFO is kept")
        if throughASymlink {
            #expect(
                try FileManager.default.destinationOfSymbolicLink(atPath: directory.file("state.json").path)
                    == "pipe", "the link is kept")
        }
        #expect(directory.names == (throughASymlink ? ["pipe", "state.json"] : ["state.json"]))
    }

    @Test func anEndlessSourceIsReadNoFurtherThanTheLimit() throws {
        let delivered = LockedValue(0)
        let limit = 100_000
        let error = #expect(throws: PersistenceError.self) {
            try FileArchiveBackend(url: directory.file("state.json")).readAll(expectedSize: 0, limit: limit) {
                buffer, count in
                buffer.initializeMemory(as: UInt8.self, repeating: 0, count: count)
                delivered.withLock { $0 += count }
                return count
            }
        }
        #expect(error?.kind == .tooLarge(bytes: limit + 1, limit: limit))
        #expect(delivered.withLock { $0 } <= limit + 1)
    }

    // MARK: Symbolic links

    @Test func anArchivePathThatIsASymlinkStaysOneAndItsTargetIsReplaced() throws {
        let target = directory.url.appendingPathComponent("data/real.json")
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("old".utf8).write(to: target)
        let link = directory.file("state.json")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "data/real.json")

        let backend = FileArchiveBackend(url: link)
        try backend.write(Data("new".utf8))
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "data/real.json",
            "the link is kept")
        #expect(try Data(contentsOf: target) == Data("new".utf8))
        #expect(try backend.read(limit: 1024) == Data("new".utf8))
        #expect(directory.names == ["data", "state.json"])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: target.deletingLastPathComponent().path)
                == ["real.json"], "no temporary file is left")
    }

    @Test func aChainOfSymlinksIsFollowedToAFileThatDoesNotExistYet() throws {
        let target = directory.file("real.json")
        try FileManager.default.createSymbolicLink(
            atPath: directory.file("middle").path, withDestinationPath: target.path)
        try FileManager.default.createSymbolicLink(
            atPath: directory.file("state.json").path, withDestinationPath: "middle")
        try FileArchiveBackend(url: directory.file("state.json")).write(Data("first".utf8))
        #expect(try Data(contentsOf: target) == Data("first".utf8))
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: directory.file("state.json").path)
                == "middle")
    }

    @Test func aSymlinkLoopIsRefusedOnSaveAndKept() throws {
        let link = directory.file("state.json")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "state.json")
        let error = #expect(throws: PersistenceError.self) {
            try FileArchiveBackend(url: link).write(Data("x".utf8))
        }
        guard case .system(_, let code, _) = error?.kind else {
            Issue.record("expected a system error, got \(String(describing: error))")
            return
        }
        #expect(code == ELOOP)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "state.json")
    }
}
