import Foundation
import ReduxSwift
import Testing

@testable import todos

/// The data files earlier releases of `todos` wrote, kept in `Fixtures/`, still load unchanged.
@Suite struct TodosArchiveFixtureTests {
    static func fixture(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
    }

    /// The archive of the app, on a directory that is never written.
    static let archive = DataFile.archive(
        in: FileManager.default.temporaryDirectory.appendingPathComponent(
            "todos-fixtures-\(UUID().uuidString)"))

    @Test func theDataFileOfTodos010StillLoadsWithEveryValue() throws {
        let state = try Self.archive.loadFixture(at: Self.fixture("todos-0.1.0.json"))
        #expect(
            state.todos == [
                Todo(id: 1, text: "Buy milk"),
                Todo(id: 2, text: "Call the bank about the café's invoice", isCompleted: true),
                Todo(id: 3, text: "Water the plants"),
            ])
        #expect(state.nextID == 4)
        #expect(state.filter == .active)
    }
}
