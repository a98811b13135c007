import Foundation
import Testing

@testable import ReduxSwift

/// The archive initializers' documented preconditions stop the program.
@Suite(.offThePool) struct ArchivePreconditionTests {
    @Test func aSchemaVersionBelowOneIsAProgrammerError() async {
        await #expect(processExitsWith: .failure) {
            _ = StateArchive<TestState>(backend: MemoryBackend(), schemaVersion: 0)
        }
        await #expect(processExitsWith: .failure) {
            _ = StateArchive<TestState>(file: URL(fileURLWithPath: "/tmp/state.json"), schemaVersion: -1)
        }
    }

    @Test func aMigrationFromTheSchemaVersionOrLaterIsAProgrammerError() async {
        await #expect(processExitsWith: .failure) {
            _ = StateArchive<TestState>(
                backend: MemoryBackend(), schemaVersion: 2, migrations: [ArchiveMigration(from: 2) { _ in }])
        }
    }

    @Test func anArchiveFileNeedsAFileURL() async {
        await #expect(processExitsWith: .failure) {
            _ = StateArchive<TestState>(file: URL(string: "https://example.com/state.json")!)
        }
    }

    @Test func migrationsFromEachVersionBelowTheSchemaVersionAreAccepted() {
        let archive = StateArchive<TestState>(
            backend: MemoryBackend(), schemaVersion: 3,
            migrations: [
                ArchiveMigration(from: 2) { _ in }, ArchiveMigration(from: 1) { _ in },
                ArchiveMigration(from: 1) { _ in },
            ])
        #expect(archive.schemaVersion == 3)
    }
}
