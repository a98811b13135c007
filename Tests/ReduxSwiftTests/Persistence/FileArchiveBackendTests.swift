import Foundation
import Testing

@testable import ReduxSwift

@Suite struct FileArchiveBackendTests {
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
        #expect(error?.reason == .tooLarge(bytes: 2048, limit: 1024))
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
}
