import Foundation
import Testing

@testable import ReduxSwift

/// What a load that fills or migrates must still do now that it writes the defaults into the JSON:
/// look at every object, give each its own new value, and leave what it cannot settle to the
/// filling decoder.
@Suite(.offThePool) struct FillingByPatchingTests {
    let directory = TemporaryDirectory()

    enum V1 {
        struct Todo: Codable, Equatable {
            var id: Int
            var title: String
            var note: String?
        }

        struct State: StateProtocol, Equatable {
            var todos: [Todo] = []
        }
    }

    enum V2 {
        /// Renames `note` to `memo`, an optional, and adds `priority`, with a default.
        struct Todo: Codable, Equatable, ArchiveDefaults {
            var id = 0
            var title = ""
            var memo: String?
            var priority = 3
        }

        struct State: StateProtocol, Equatable, ArchiveDefaults {
            var todos: [Todo] = []
            var sort = "date"
        }
    }

    enum V2Renamed {
        /// Renames `note` to `memo`, an optional, and nothing else: no member to fill.
        struct Todo: Codable, Equatable {
            var id: Int
            var title: String
            var memo: String?
        }

        struct State: StateProtocol, Equatable {
            var todos: [Todo] = []
            var sort: String
        }
    }

    /// 100 todos, of which only `noted` has a note.
    func version1(noted: Int) throws -> URL {
        let url = directory.file("Todos.json")
        let todos = (0..<100).map {
            V1.Todo(id: $0, title: "todo \($0)", note: $0 == noted ? "call Ada" : nil)
        }
        try StateArchive<V1.State>(file: url).save(V1.State(todos: todos))
        return url
    }

    @Test func aRenameToAnOptionalThatOnlyAValueOutsideTheSampleHoldsIsAskedAboutByTheFixtureCheck() throws {
        struct Item: Codable, Equatable {
            var q: Int
            var memo: String?  // "note" before
        }
        struct State: StateProtocol, Equatable { var byID: [UUID: Item] }
        // Archived as keys and values; the value of pair 51 of 100 is outside a launch's sample.
        #expect(!DefaultFilling.Sample.includes(103, of: 200))
        let entries = (0..<100).map { index in
            let id = UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", index))!
            return #""\#(id.uuidString)",{"q":\#(index)\#(index == 51 ? #","note":"only""# : "")}"#
        }
        let url = directory.file("fixture.json")
        try Data(#"{"schemaVersion":1,"state":{"byID":[\#(entries.joined(separator: ","))]}}"#.utf8).write(
            to: url)
        let error = try #require(throws: PersistenceError.self) {
            try StateArchive<State>(file: directory.file("live.json")).loadFixture(at: url)
        }
        // Asked as a rename, as a launch that looks at the value asks, not offered as a removal
        // that compiles as it is and drops the note.
        #expect(
            error.suggestedMigrations?.contains(
                ##"renaming: <#"note", or delete this line#>, to: "memo", in: "byID[values]")"##) == true,
            "\(error)")
        #expect(error.suggestedMigrations?.contains(#"removing: "note""#) != true, "\(error)")
    }

    @Test func aRenameToAnOptionalThatOnlyAnObjectOutsideTheSampleHoldsIsCaughtByALoadThatMigrates() throws {
        // Element 57 of 100 is outside the sample a plain launch looks at.
        #expect(!DefaultFilling.Sample.includes(57, of: 100))
        let url = try version1(noted: 57)
        // The migration adds what version 2 needs, so nothing is missing: only the rename is left.
        let archive = StateArchive<V2Renamed.State>(
            file: url, schemaVersion: 2,
            migrations: [ArchiveMigration(from: 1, adding: "sort", json: #""date""#)])
        let error = try #require(throws: PersistenceError.self) { try archive.load() }
        guard case .needsMigration(let path, _, let migration) = error.kind else {
            Issue.record("expected needsMigration, got \(error)")
            return
        }
        #expect(path == "state.todos[57].memo", "\(error)")
        #expect(
            migration.contains(##"renaming: <#"note", or delete this line#>, to: "memo""##), "\(migration)")
    }

    @Test func anObjectOutsideTheSampleThatLacksAMemberTheOthersHoldGetsItsDefault() throws {
        let url = directory.file("Priorities.json")
        var todos: [String] = []
        for id in 0..<100 {
            todos.append(
                id == 57
                    ? #"{"id":57,"title":"t"}"# : #"{"id":\#(id),"title":"t","priority":1}"#)
        }
        try Data(
            #"{"schemaVersion":2,"state":{"sort":"name","todos":[\#(todos.joined(separator: ","))]}}"#.utf8
        )
        .write(to: url)
        let state = try #require(try StateArchive<V2.State>(file: url, schemaVersion: 2).load())
        #expect(state.todos.map(\.priority) == (0..<100).map { $0 == 57 ? 3 : 1 })
        #expect(state.sort == "name")
    }

    struct Tagged: StateProtocol, Equatable, ArchiveDefaults {
        struct Item: Codable, Equatable, ArchiveDefaults {
            var name = ""
            var id = UUID()
            var rank = 1
        }

        var items: [Item] = []
    }

    @Test func eachObjectThatLacksAMemberWhoseDefaultIsNewEachTimeGetsItsOwn() throws {
        let url = directory.file("Tagged.json")
        let items = (0..<50).map { #"{"name":"item \#($0)"}"# }.joined(separator: ",")
        try Data(#"{"schemaVersion":1,"state":{"items":[\#(items)]}}"#.utf8).write(to: url)
        let state = try #require(try StateArchive<Tagged>(file: url).load())
        #expect(Set(state.items.map(\.id)).count == 50)
        #expect(state.items.allSatisfy { $0.rank == 1 })
        #expect(state.items.map(\.name) == (0..<50).map { "item \($0)" })
    }

    @Test func objectsLoadedOneByOneEachGetTheirOwnNewDefaultAndTheSameSteadyOne() throws {
        let url = directory.file("TaggedLegacy.json")
        // A member version 2 removed sends the load object by object.
        let items = (0..<50).map { #"{"name":"item \#($0)","legacy":true}"# }.joined(separator: ",")
        try Data(#"{"schemaVersion":1,"state":{"items":[\#(items)]}}"#.utf8).write(to: url)
        let state = try #require(try StateArchive<Tagged>(file: url).load())
        #expect(Set(state.items.map(\.id)).count == 50)
        #expect(state.items.allSatisfy { $0.rank == 1 })
        #expect(state.items.map(\.name) == (0..<50).map { "item \($0)" })
    }

    /// A state whose encodings of notes are counted.
    struct Counted: StateProtocol, Equatable, ArchiveDefaults {
        static let encodings = LockedValue(0)

        var notes: [String] = []
        var sort = "date"

        init() {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            notes = try container.decode([String].self, forKey: .notes)
            sort = try container.decode(String.self, forKey: .sort)
        }

        func encode(to encoder: any Encoder) throws {
            // The defaults' encodings, which tell a load what they are, are not counted.
            if !notes.isEmpty { Self.encodings.withLock { $0 += 1 } }
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(notes, forKey: .notes)
            try container.encode(sort, forKey: .sort)
        }

        enum CodingKeys: String, CodingKey {
            case notes
            case sort
        }
    }

    @Test func anUpgradedArchiveIsWrittenBackAsItLoadedWithoutEncodingTheStateAgain() throws {
        let url = directory.file("Counted.json")
        try Data(#"{"schemaVersion":1,"state":{"old":["milk","eggs"]}}"#.utf8).write(to: url)
        let archive = StateArchive<Counted>(
            file: url, schemaVersion: 2, migrations: [ArchiveMigration(from: 1, renaming: "old", to: "notes")]
        )
        let before = Counted.encodings.withLock { $0 }
        let state = try #require(try archive.load())
        #expect(state.notes == ["milk", "eggs"] && state.sort == "date")
        #expect(Counted.encodings.withLock { $0 } == before, "the write-back encoded the state")
        let written = try Data(contentsOf: url)
        #expect(ArchiveSiblings.schemaVersion(in: written) == 2)
        struct Envelope: Decodable { let state: Counted }
        #expect(try JSONDecoder().decode(Envelope.self, from: written).state == state)
        #expect(try StateArchive<Counted>(file: url, schemaVersion: 2).load() == state)
    }
}
