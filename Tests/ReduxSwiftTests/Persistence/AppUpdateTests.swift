import Foundation
import Testing

@testable import ReduxSwift

// Version 1 of a shop app's state, as it was saved by the previous release.
enum ShopV1 {
    struct Wrapping: Codable, Equatable {
        var paper = "plain"
    }

    struct Line: Codable, Equatable {
        var sku: String
        var quantity: Int
        var wrapping = Wrapping()
    }

    enum Status: String, Codable, Equatable {
        case open, paid
    }

    struct State: StateProtocol, Equatable {
        var lines: [Line] = []
        var saved: [String: Line] = [:]
        var settings = Settings()
        var status = Status.open
        var note = 0
        var legacyFlag = true
    }

    struct Settings: Codable, Equatable {
        var fontSize = 14
    }
}

// Version 2: every position gains a property with a default; an enum case is added, a property is
// made optional and another is removed.
enum ShopV2 {
    struct Wrapping: Codable, Equatable, ArchiveDefaults {
        var paper = "plain"
        var ribbon = "gold"  // added
    }

    struct Line: Codable, Equatable {
        var sku: String
        var quantity: Int
        var wrapping = Wrapping()
        var giftWrap = true  // added
        var price: Decimal = Decimal(string: "9.99")!  // added
    }

    enum Status: String, Codable, Equatable {
        case open, paid, refunded  // `refunded` added
    }

    struct Settings: Codable, Equatable, ArchiveDefaults {
        var fontSize = 14
        var theme = Theme.dark  // added: a nested value
    }

    struct Theme: Codable, Equatable {
        var name: String
        var contrast: Double

        static let dark = Theme(name: "dark", contrast: 1.5)
    }

    struct State: StateProtocol, Equatable, ArchiveDefaults {
        var lines: [Line] = []
        var saved: [String: Line] = [:]
        var settings = Settings()
        var status = Status.open
        var note: Int?  // made optional
        // `legacyFlag` removed.
        var currency = "EUR"  // added
        var coupon: String? = "WELCOME"  // added, optional with a default: loads as nil
    }
}

extension ShopV2.Line: ArchiveDefaults {
    init() { self.init(sku: "", quantity: 0) }
}

/// An app update keeps users' data: the previous version's archive loads into the new types with
/// no migration code, and each added property holds the default its declaration gives.
@Suite(.offThePool) struct AppUpdateTests {
    let directory = TemporaryDirectory()

    var url: URL { directory.file("Shop.json") }

    func saveV1(_ state: ShopV1.State, schemaVersion: Int = 1) throws {
        try StateArchive<ShopV1.State>(file: url, schemaVersion: schemaVersion).save(state)
    }

    static let v1 = ShopV1.State(
        lines: [
            ShopV1.Line(sku: "A-1", quantity: 2, wrapping: ShopV1.Wrapping(paper: "stars")),
            ShopV1.Line(sku: "B-2", quantity: 1),
        ],
        saved: ["later": ShopV1.Line(sku: "C-3", quantity: 5)],
        settings: ShopV1.Settings(fontSize: 18), status: .paid, note: 7, legacyFlag: false)

    static let expectedV2 = ShopV2.State(
        lines: [
            ShopV2.Line(sku: "A-1", quantity: 2, wrapping: ShopV2.Wrapping(paper: "stars")),
            ShopV2.Line(sku: "B-2", quantity: 1),
        ],
        saved: ["later": ShopV2.Line(sku: "C-3", quantity: 5)],
        settings: ShopV2.Settings(fontSize: 18), status: .paid, note: 7, coupon: nil)

    @Test func thePreviousVersionsArchiveLoadsWithEveryAddedPropertyAtItsDeclaredDefault() throws {
        try saveV1(Self.v1)
        let loaded = try StateArchive<ShopV2.State>(file: url).load()
        #expect(loaded == Self.expectedV2)
        // Each position, spelled out: the top level, a nested struct, an array element, a
        // dictionary value, and a struct nested in an element.
        #expect(loaded?.currency == "EUR")
        #expect(loaded?.settings.theme == .dark)
        #expect(loaded?.lines.map(\.giftWrap) == [true, true])
        #expect(loaded?.lines.map(\.price) == [Decimal(string: "9.99")!, Decimal(string: "9.99")!])
        #expect(loaded?.saved["later"]?.giftWrap == true)
        #expect(loaded?.lines.map(\.wrapping.ribbon) == ["gold", "gold"])
        #expect(loaded?.lines.first?.wrapping.paper == "stars")
    }

    @Test func restoringThePreviousVersionsArchiveNeitherMovesItNorPrintsAnError() throws {
        try saveV1(Self.v1)
        let archive = StateArchive<ShopV2.State>(file: url)
        var failures: [PersistenceError] = []
        let state = archive.restore(default: ShopV2.State()) { error, _ in failures.append(error) }
        #expect(failures.isEmpty)
        #expect(state == Self.expectedV2)
        // The next save writes the complete state, which loads without filling.
        try archive.save(state)
        #expect(try StateArchive<ShopV2.State>(file: url).load() == Self.expectedV2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["Shop.json"])
    }

    @Test func aFilledLoadAfterMigrationsTakesTheDefaultsToo() throws {
        try saveV1(Self.v1, schemaVersion: 1)
        let archive = StateArchive<ShopV2.State>(
            file: url, schemaVersion: 2,
            migrations: [ArchiveMigration(from: 1, removing: "legacyFlag")])
        #expect(try archive.load() == Self.expectedV2)
    }

    @Test func anOptionalPropertyWithADefaultKeepsASavedNil() throws {
        var state = ShopV2.State()
        state.coupon = nil
        let archive = StateArchive<ShopV2.State>(file: url)
        try archive.save(state)
        #expect(try archive.load()?.coupon == nil)
        // Also when another member is missing and the load fills it.
        var archived = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var saved = try #require(archived["state"] as? [String: Any])
        #expect(saved.removeValue(forKey: "currency") as? String == "EUR")
        archived["state"] = saved
        try JSONSerialization.data(withJSONObject: archived).write(to: url)
        let loaded = try archive.load()
        #expect(loaded?.coupon == nil)
        #expect(loaded?.currency == "EUR")
    }

    @Test func aMemberRenamedInATypeWithDefaultsFailsAskingForTheRenameAndKeepsTheFile() throws {
        // Version 1 called the quantity "count"; version 2 renamed it and gave it a default.
        struct LineV1: Codable {
            var sku: String
            var count: Int
        }
        struct StateV1: StateProtocol { var lines: [LineV1] }
        struct LineV2: Codable, Equatable, ArchiveDefaults {
            var sku = ""
            var quantity = 1
        }
        struct StateV2: StateProtocol, Equatable { var lines: [LineV2] }
        try StateArchive<StateV1>(file: url).save(StateV1(lines: [LineV1(sku: "A", count: 4)]))
        let before = try Data(contentsOf: url)

        let archive = StateArchive<StateV2>(file: url)
        let error = #expect(throws: PersistenceError.self) { try archive.load() }
        // A member with a default may as well be new beside a removed one: the line asks.
        let migration =
            #"ArchiveMigration(from: 1, renaming: <#"count", or delete this line#>, to: "quantity", in: "lines[]")"#
        guard case .needsMigration(let path, let detail, migration)? = error?.kind else {
            Issue.record("expected needsMigration with \(migration), got \(String(describing: error))")
            return
        }
        #expect(path == "state.lines[0].quantity")
        #expect(detail.contains(#"ArchiveMigration(from: 1, removing: "count", in: "lines[]")"#))
        #expect(error?.description.contains("Raise schemaVersion to 2 and add \(migration)") == true)
        #expect(error?.description.contains("corrupt") == false)

        // restore(default:) leaves the file where it is, and saves go beside it, not over it.
        var keptAt: String?? = .none
        _ = archive.restore(default: StateV2(lines: [])) { _, kept in keptAt = kept }
        #expect(keptAt == .some(nil))
        try archive.save(StateV2(lines: []))
        #expect(try Data(contentsOf: url) == before)
        #expect(directory.names == ["Shop.json", "Shop.json.unmerged"])

        // The migration the error shows, with its choice made, fixes the load.
        let migrated = StateArchive<StateV2>(
            file: url, schemaVersion: 2,
            migrations: [ArchiveMigration(from: 1, renaming: "count", to: "quantity", in: "lines[]")])
        #expect(try migrated.load() == StateV2(lines: [LineV2(sku: "A", quantity: 4)]))
    }

    @Test func aTypeChangeFailsWithTheConvertingMigrationAtItsPath() throws {
        struct LineV1: Codable {
            var sku: String
            var quantity: String
        }
        struct StateV1: StateProtocol { var saved: [String: LineV1] }
        struct LineV2: Codable, Equatable {
            var sku: String
            var quantity: Int
        }
        struct StateV2: StateProtocol, Equatable { var saved: [String: LineV2] }
        try StateArchive<StateV1>(file: url).save(StateV1(saved: ["x": LineV1(sku: "A", quantity: "3")]))
        let before = try Data(contentsOf: url)

        let archive = StateArchive<StateV2>(file: url)
        let error = #expect(throws: PersistenceError.self) { try archive.load() }
        guard case .needsMigration(let path, _, let migration)? = error?.kind else {
            Issue.record("expected needsMigration, got \(String(describing: error))")
            return
        }
        #expect(path == "state.saved.x.quantity")
        #expect(migration.hasPrefix(#"ArchiveMigration(from: 1, converting: "quantity", in: "saved[]")"#))
        _ = archive.restore(default: StateV2(saved: [:])) { _, _ in }
        #expect(try Data(contentsOf: url) == before)

        let migrated = StateArchive<StateV2>(
            file: url, schemaVersion: 2,
            migrations: [
                ArchiveMigration(from: 1, converting: "quantity", in: "saved[]") {
                    Int($0 as? String ?? "") ?? 0
                }
            ])
        #expect(try migrated.load() == StateV2(saved: ["x": LineV2(sku: "A", quantity: 3)]))
    }

    @Test func aMemberMissingFromATypeWithoutDefaultsNamesTheTypeAndTheAddingMigration() throws {
        struct StateV1: StateProtocol { var lines: [String] }
        struct StateV2: StateProtocol, Equatable {
            var lines: [String]
            var giftWrap: Bool
        }
        try StateArchive<StateV1>(file: url).save(StateV1(lines: ["a"]))

        let error = #expect(throws: PersistenceError.self) { try StateArchive<StateV2>(file: url).load() }
        guard case .needsMigration(let path, let detail, let migration)? = error?.kind else {
            Issue.record("expected needsMigration, got \(String(describing: error))")
            return
        }
        #expect(path == "state.giftWrap")
        #expect(detail.contains("ArchiveDefaults"))
        #expect(detail.contains("StateV2"))
        #expect(
            migration
                == ##"ArchiveMigration(from: 1, adding: "giftWrap", value: <#false, or the value StateV2 declares#>)"##
        )

        let migrated = StateArchive<StateV2>(
            file: url, schemaVersion: 2,
            migrations: [ArchiveMigration(from: 1, adding: "giftWrap", value: false)])
        #expect(try migrated.load() == StateV2(lines: ["a"], giftWrap: false))
    }

    @Test func aRemovedPropertyAloneLoads() throws {
        struct StateV2: StateProtocol, Equatable, ArchiveDefaults { var note = 0 }
        try saveV1(Self.v1)
        #expect(try StateArchive<StateV2>(file: url).load() == StateV2(note: 7))
    }

    @Test func defaultsFollowCustomCodingKeysAndCustomCoding() throws {
        struct Prefs: Codable, Equatable, ArchiveDefaults {
            var fontSize = 12
            var accent = "blue"
            enum CodingKeys: String, CodingKey {
                case fontSize = "font_size"
                case accent = "accent_color"
            }
        }
        struct State: StateProtocol, Equatable { var prefs: Prefs }
        try Data(#"{"schemaVersion":1,"state":{"prefs":{"font_size":20}}}"#.utf8).write(to: url)
        #expect(
            try StateArchive<State>(file: url).load() == State(prefs: Prefs(fontSize: 20, accent: "blue")))
    }

    @Test func aUserDefaultsArchiveThatNeedsAMigrationStaysUnderItsKey() throws {
        struct StateV1: StateProtocol { var count: Int }
        struct StateV2: StateProtocol { var count: String }
        let defaults = UserDefaults(suiteName: "AppUpdateTests.\(UUID().uuidString)")!
        let backend = UserDefaultsArchiveBackend(name: "Shop", namespace: "test", defaults: defaults)
        try StateArchive<StateV1>(backend: backend).save(StateV1(count: 3))
        let before = defaults.data(forKey: "test.Shop")

        var reported: PersistenceError?
        _ = StateArchive<StateV2>(backend: backend).restore(default: StateV2(count: "")) { error, _ in
            reported = error
        }
        guard case .needsMigration? = reported?.kind else {
            Issue.record("expected needsMigration, got \(String(describing: reported))")
            return
        }
        #expect(defaults.data(forKey: "test.Shop") == before)
        #expect(
            defaults.dictionaryRepresentation().keys.filter { $0.hasPrefix("test.Shop") }.sorted() == [
                "test.Shop"
            ])
    }

    @Test func anArchiveFromANewerVersionIsLeftWhereItIsByRestore() throws {
        try saveV1(Self.v1, schemaVersion: 3)
        let before = try Data(contentsOf: url)
        var keptAt: String?? = .none
        _ = StateArchive<ShopV2.State>(file: url, schemaVersion: 2).restore(default: ShopV2.State()) {
            _, kept in
            keptAt = kept
        }
        #expect(keptAt == .some(nil))
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func bytesThatAreNotAnArchiveAreStillSetAsideAsCorrupt() throws {
        try Data("{\"schemaVersion\":1,\"state\":".utf8).write(to: url)
        var keptAt: String?
        _ = StateArchive<ShopV2.State>(file: url).restore(default: ShopV2.State()) { _, kept in keptAt = kept
        }
        #expect(keptAt?.contains(".corrupt-") == true)
    }
}

/// `loadFixture(at:)`: an archive kept from an earlier version loads, and every value it holds
/// comes back; the fixture is never changed.
@Suite(.offThePool) struct ArchiveFixtureTests {
    let directory = TemporaryDirectory()

    var url: URL { directory.file("fixture.json") }

    @Test func aFixtureOfThePreviousVersionLoadsAndKeepsEveryValue() throws {
        try StateArchive<ShopV1.State>(file: url).save(AppUpdateTests.v1)
        let before = try Data(contentsOf: url)
        let archive = StateArchive<ShopV2.State>(
            file: directory.file("live.json"), schemaVersion: 2,
            migrations: [ArchiveMigration(from: 1, removing: "legacyFlag")])
        #expect(try archive.loadFixture(at: url) == AppUpdateTests.expectedV2)
        #expect(try Data(contentsOf: url) == before)
        // The archive's own location is not touched.
        #expect(!FileManager.default.fileExists(atPath: directory.file("live.json").path))
    }

    @Test func aMemberTheCurrentTypesDropFailsWithTheRemovingMigration() throws {
        try StateArchive<ShopV1.State>(file: url).save(AppUpdateTests.v1)
        let error = #expect(throws: PersistenceError.self) {
            try StateArchive<ShopV2.State>(file: directory.file("live.json")).loadFixture(at: url)
        }
        guard case .needsMigration(let path, let detail, let migration)? = error?.kind else {
            Issue.record("expected needsMigration, got \(String(describing: error))")
            return
        }
        #expect(path == "state.legacyFlag")
        #expect(detail.contains("state.legacyFlag is dropped"))
        #expect(migration == #"ArchiveMigration(from: 1, removing: "legacyFlag")"#)
        #expect(error?.location == url.path)
    }

    @Test func aMemberDroppedInsideADictionarysValuesIsNamedForEveryValueNotOneKey() throws {
        struct Item: Codable, Equatable { var title: String }
        struct State: StateProtocol, Equatable { var items: [String: Item] }
        // Only the value under "k137" holds the member `note`, which the types no longer read.
        try Data(
            #"{"schemaVersion":1,"state":{"items":{"k1":{"title":"a"},"k137":{"title":"b","note":"n"}}}}"#
                .utf8
        )
        .write(to: url)
        let error = #expect(throws: PersistenceError.self) {
            try StateArchive<State>(file: directory.file("live.json")).loadFixture(at: url)
        }
        guard case .needsMigration(let path, let detail, let migration)? = error?.kind else {
            Issue.record("expected needsMigration, got \(String(describing: error))")
            return
        }
        #expect(path == "state.items.k137.note")
        // The line covers the values under every key, as the users' archives hold them.
        #expect(migration == #"ArchiveMigration(from: 1, removing: "note", in: "items[]")"#)
        #expect(detail.contains(#"renaming: "note", to: <#its new name#>, in: "items[]")"#), "\(detail)")
    }

    @Test func aMemberDroppedInsideTheValuesOfADictionaryArchivedAsPairsIsNamedForItsValues() throws {
        struct Key: Codable, Hashable { var shelf: Int }
        struct Item: Codable, Equatable { var title: String }
        struct State: StateProtocol, Equatable {
            var byID: [UUID: Item] = [:]
            var byKey: [Key: Item] = [:]
            var nested: [UUID: [Key: Item]] = [:]
        }
        let (one, two) = (UUID(), UUID())
        func fixture(_ state: String) throws(PersistenceError) -> State {
            try? Data(#"{"schemaVersion":1,"state":\#(state)}"#.utf8).write(to: url)
            return try StateArchive<State>(file: directory.file("live.json")).loadFixture(at: url)
        }
        let cases: [(state: String, path: String, place: String)] = [
            (
                #"{"byID":["\#(one)",{"title":"a"},"\#(two)",{"title":"b","legacy":1}],"byKey":[],"nested":[]}"#,
                "state.byID.\(two).legacy", "byID[values]"
            ),
            (
                #"{"byID":[],"byKey":[{"shelf":1},{"title":"a","legacy":1},{"shelf":2},{"title":"b"}],"nested":[]}"#,
                #"state.byKey.{"shelf":1}.legacy"#, "byKey[values]"
            ),
            (
                #"{"byID":[],"byKey":[],"nested":["\#(one)",[{"shelf":1},{"title":"a"},{"shelf":2},{"title":"b","legacy":1}]]}"#,
                #"state.nested.\#(one).{"shelf":2}.legacy"#, "nested[values][values]"
            ),
        ]
        for (state, path, place) in cases {
            let error = #expect(throws: PersistenceError.self) { try fixture(state) }
            guard case .needsMigration(let named, _, let line)? = error?.kind else {
                Issue.record("expected needsMigration, got \(String(describing: error))")
                continue
            }
            // The value under one key, and a line that covers the values under every key: not the
            // whole dictionary, and not its keys.
            #expect(named == path)
            #expect(line == #"ArchiveMigration(from: 1, removing: "legacy", in: "\#(place)")"#)
            // Written as told, the line makes the fixture pass.
            let migrated = StateArchive<State>(
                file: directory.file("live.json"), schemaVersion: 2,
                migrations: [ArchiveMigration(from: 1, removing: "legacy", in: place)])
            #expect(throws: Never.self) { try migrated.loadFixture(at: url) }
        }
        // The same values without the member load as they are.
        let loaded = try fixture(
            #"{"byID":["\#(one)",{"title":"a"}],"byKey":[{"shelf":1},{"title":"b"}],"nested":[]}"#)
        #expect(loaded == State(byID: [one: Item(title: "a")], byKey: [Key(shelf: 1): Item(title: "b")]))
    }

    @Test func aDictionarysValueChangedWholeIsNotTakenForAMemberNamedByItsKey() throws {
        /// Reads a number or a string of digits, and writes a number.
        struct Count: Codable, Equatable {
            var value: Int
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                value = try (try? container.decode(Int.self)) ?? Int(container.decode(String.self)) ?? 0
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(value)
            }
        }
        struct State: StateProtocol { var byName: [String: Count] = [:], byID: [UUID: Count] = [:] }
        let id = UUID()
        for state in [
            #"{"byName":{"k1":"3"},"byID":[]}"#, #"{"byName":{},"byID":["\#(id)","3"]}"#,
        ] {
            try Data(#"{"schemaVersion":1,"state":\#(state)}"#.utf8).write(to: url)
            let error = #expect(throws: PersistenceError.self) {
                try StateArchive<State>(file: directory.file("live.json")).loadFixture(at: url)
            }
            guard case .needsMigration(_, _, let line)? = error?.kind else {
                Issue.record("expected needsMigration, got \(String(describing: error))")
                continue
            }
            // Not `converting: "k1", in: "byName"`: only a migration with a body changes a value.
            #expect(line == "ArchiveMigration(from: 1) { state in <#change state to the new shape#> }")
        }
    }

    @Test func aValueDroppedAfterTheMigrationsOfAnOlderFixtureOffersToAddTheLineToThem() throws {
        struct Item: Codable, Equatable { var memo: String }
        struct State: StateProtocol, Equatable { var items: [Item] }
        // Version 2 renamed note to memo; the fixture of version 1 also holds `legacy`, which no
        // migration takes.
        try Data(#"{"schemaVersion":1,"state":{"items":[{"note":"a","legacy":1}]}}"#.utf8).write(to: url)
        let archive = StateArchive<State>(
            file: directory.file("live.json"), schemaVersion: 2,
            migrations: [ArchiveMigration(from: 1, renaming: "note", to: "memo", in: "items[]")])
        let error = #expect(throws: PersistenceError.self) { try archive.loadFixture(at: url) }
        guard case .needsMigration(_, let detail, let migration)? = error?.kind else {
            Issue.record("expected needsMigration, got \(String(describing: error))")
            return
        }
        #expect(detail.hasPrefix("after migrating to version 2, "), "\(detail)")
        #expect(migration == #"ArchiveMigration(from: 2, removing: "legacy", in: "items[]")"#)
        // Where version 2 has not shipped, the line belongs with the migrations from version 1.
        let text = error?.description ?? ""
        #expect(text.contains("if version 2 has not shipped yet, keep schemaVersion at 2"), "\(text)")
        #expect(text.contains("with from: 1"), "\(text)")
        let amended = StateArchive<State>(
            file: directory.file("live.json"), schemaVersion: 2,
            migrations: [
                ArchiveMigration(from: 1, renaming: "note", to: "memo", in: "items[]"),
                ArchiveMigration(from: 1, removing: "legacy", in: "items[]"),
            ])
        #expect(try amended.loadFixture(at: url) == State(items: [Item(memo: "a")]))
    }

    @Test func aFixtureOfAVersionWithNoMigrationNamesTheChangesAndTheirBlockAsALoadDoes() throws {
        struct Item: Codable, Equatable { var q: Int }
        struct State: StateProtocol, Equatable { var x: [Item] }
        // Version 2 dropped `legacy`; schemaVersion was raised before any migration was written.
        try Data(#"{"schemaVersion":1,"state":{"x":[{"q":1,"legacy":"L"}]}}"#.utf8).write(to: url)
        let archive = StateArchive<State>(file: directory.file("live.json"), schemaVersion: 2)
        let fixture = #expect(throws: PersistenceError.self) { try archive.loadFixture(at: url) }
        try Data(#"{"schemaVersion":1,"state":{"x":[{"q":1,"legacy":"L"}]}}"#.utf8).write(
            to: directory.file("live.json"))
        let load = #expect(throws: PersistenceError.self) { try archive.load() }
        #expect(fixture?.kind == .missingMigration(from: 1))
        #expect(fixture?.location == url.path)
        #expect(fixture?.suggestedMigrations != nil)
        #expect(fixture?.suggestedMigrations == load?.suggestedMigrations)
        #expect(fixture?.migrationProblems.map(\.path) == ["state.x[0].legacy"])
        // No migration ran: the detail does not say one did.
        let detail = fixture?.migrationProblems.first?.detail ?? ""
        #expect(detail.hasPrefix("as archived, "), "\(detail)")
        #expect(
            fixture?.migrationProblems.map(\.migration) == [
                #"ArchiveMigration(from: 1, removing: "legacy", in: "x[]")"#
            ])
    }

    @Test func aValueTheCurrentTypesChangeIsNamedWithBothValues() throws {
        struct Rounding: StateProtocol, Equatable {
            var price: Double
            init(price: Double) { self.price = price }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                price = try container.decode(Double.self, forKey: .price).rounded()
            }
        }
        try Data(#"{"schemaVersion":1,"state":{"price":2.5}}"#.utf8).write(to: url)
        let error = #expect(throws: PersistenceError.self) {
            try StateArchive<Rounding>(file: directory.file("live.json")).loadFixture(at: url)
        }
        guard case .needsMigration(let path, let detail, _)? = error?.kind else {
            Issue.record("expected needsMigration, got \(String(describing: error))")
            return
        }
        #expect(path == "state.price")
        #expect(detail.contains("state.price was 2.5 and is now 3"))
    }

    @Test func setsAndNumbersWrittenDifferentlyCompareByValue() throws {
        struct Tagged: StateProtocol, Equatable {
            var tags: Set<String>
            var ratio: Double
        }
        try Data(#"{"schemaVersion":1,"state":{"tags":["c","a","b","d","e"],"ratio":1.50}}"#.utf8).write(
            to: url)
        let state = try StateArchive<Tagged>(file: directory.file("live.json")).loadFixture(at: url)
        #expect(state == Tagged(tags: ["a", "b", "c", "d", "e"], ratio: 1.5))
    }

    @Test func aMissingFixtureIsAnErrorNamingIt() {
        let error = #expect(throws: PersistenceError.self) {
            try StateArchive<ShopV2.State>(file: directory.file("live.json")).loadFixture(at: url)
        }
        #expect(error?.location == url.path)
        #expect(
            error?.kind == .system(call: "open", errno: ENOENT, message: String(cString: strerror(ENOENT))))
    }
}

/// The one-line member migrations, at every kind of path.
@Suite(.offThePool) struct MemberMigrationTests {
    func migrate(_ state: [String: Any], _ migration: ArchiveMigration) throws -> String {
        var state = state
        try migration.body(&state)
        return String(
            decoding: try JSONSerialization.data(withJSONObject: state, options: [.sortedKeys]), as: UTF8.self
        )
    }

    @Test func renamingReachesEveryElementAndEveryDictionaryValue() throws {
        let state: [String: Any] = [
            "cart": ["lines": [["title": "a"], ["title": "b", "name": "old"], ["other": 1]]],
            "saved": ["x": ["title": "c"], "y": ["title": "d"]],
        ]
        #expect(
            try migrate(state, ArchiveMigration(from: 1, renaming: "title", to: "name", in: "cart.lines[]"))
                == #"{"cart":{"lines":[{"name":"a"},{"name":"b"},{"other":1}]},"saved":{"x":{"title":"c"},"y":{"title":"d"}}}"#
        )
        #expect(
            try migrate(state, ArchiveMigration(from: 1, renaming: "title", to: "name", in: "saved[]"))
                == #"{"cart":{"lines":[{"title":"a"},{"name":"old","title":"b"},{"other":1}]},"saved":{"x":{"name":"c"},"y":{"name":"d"}}}"#
        )
    }

    @Test func removingAddingAndConvertingWorkAtTheStateAndBelowArraysOfArrays() throws {
        let state: [String: Any] = ["grid": [[["n": "1"], ["n": "2"]], [["n": "3"]]], "old": true]
        #expect(
            try migrate(state, ArchiveMigration(from: 1, removing: "old"))
                == #"{"grid":[[{"n":"1"},{"n":"2"}],[{"n":"3"}]]}"#)
        #expect(
            try migrate(state, ArchiveMigration(from: 1, adding: "old", value: false))
                == #"{"grid":[[{"n":"1"},{"n":"2"}],[{"n":"3"}]],"old":true}"#)
        #expect(
            try migrate(state, ArchiveMigration(from: 1, adding: "new", value: 7, in: "grid[][]"))
                == #"{"grid":[[{"n":"1","new":7},{"n":"2","new":7}],[{"n":"3","new":7}]],"old":true}"#)
        #expect(
            try migrate(
                state,
                ArchiveMigration(from: 1, converting: "n", in: "grid[][]") { Int($0 as? String ?? "") ?? 0 })
                == #"{"grid":[[{"n":1},{"n":2}],[{"n":3}]],"old":true}"#)
    }

    @Test func aPathToNothingChangesNothing() throws {
        let state: [String: Any] = ["cart": NSNull(), "list": [1, 2]]
        for path in ["missing", "cart", "cart.lines[]", "list[]", "list[].x"] {
            #expect(
                try migrate(state, ArchiveMigration(from: 1, adding: "x", value: 1, in: path))
                    == #"{"cart":null,"list":[1,2]}"#, "\(path)")
        }
    }

    @Test func valuesAndKeysTakeOneSideOfADictionaryArchivedAsKeysAndValues() throws {
        // `[Key: Item]` with struct keys is archived as `[key, value, key, value, …]`.
        let state: [String: Any] = [
            "byKey": [["note": "k1"], ["note": "v1"], ["note": "k2"], ["note": "v2"]],
            "byName": ["a": ["note": "x"]],
        ]
        let untouchedByName = #""byName":{"a":{"note":"x"}}"#
        #expect(
            try migrate(state, ArchiveMigration(from: 1, renaming: "note", to: "memo", in: "byKey[values]"))
                == #"{"byKey":[{"note":"k1"},{"memo":"v1"},{"note":"k2"},{"memo":"v2"}],\#(untouchedByName)}"#
        )
        #expect(
            try migrate(state, ArchiveMigration(from: 1, renaming: "note", to: "memo", in: "byKey[keys]"))
                == #"{"byKey":[{"memo":"k1"},{"note":"v1"},{"memo":"k2"},{"note":"v2"}],\#(untouchedByName)}"#
        )
        #expect(
            try migrate(state, ArchiveMigration(from: 1, renaming: "note", to: "memo", in: "byKey[]"))
                == #"{"byKey":[{"memo":"k1"},{"memo":"v1"},{"memo":"k2"},{"memo":"v2"}],\#(untouchedByName)}"#
        )
        // A dictionary archived as an object: `[values]` is every value, and its keys hold no object.
        let byKey = #""byKey":[{"note":"k1"},{"note":"v1"},{"note":"k2"},{"note":"v2"}]"#
        #expect(
            try migrate(state, ArchiveMigration(from: 1, renaming: "note", to: "memo", in: "byName[values]"))
                == #"{\#(byKey),"byName":{"a":{"memo":"x"}}}"#)
        #expect(
            try migrate(state, ArchiveMigration(from: 1, renaming: "note", to: "memo", in: "byName[keys]"))
                == #"{\#(byKey),\#(untouchedByName)}"#)
    }

    @Test func valuesAndKeysTakeTheSameSideWhenTheMigrationEditsTheArchivedJSON() throws {
        var state = try JSONValue(
            parsing: Data(#"{"byKey":[{"note":"k1"},{"note":"v1"}],"byName":{"a":{"note":"x"}}}"#.utf8))
        for path in ["byKey[values]", "byName[values]", "byName[keys]"] {
            state.forEachObject(at: MemberPath.parse(path)[...]) { members in
                if let value = members.removeValue(forKey: "note") { members["memo"] = value }
            }
        }
        #expect(state.description == #"{"byKey":[{"note":"k1"},{"memo":"v1"}],"byName":{"a":{"memo":"x"}}}"#)
    }

    @Test(arguments: [
        "", "a", "a.b", "a[]", "a[][].b", "[]", "[].a", "a[values]", "a[keys].b", "a[][values].c",
    ])
    func wellFormedPathsParse(_ path: String) {
        #expect(MemberPath.steps(of: path) != nil)
    }

    @Test(arguments: [
        "a..b", ".a", "a.", "a[", "a]", "a[x]", "a.[]", "a[]b", "a[value]", "a[values", "a[keys]b",
    ])
    func malformedPathsAreRefused(_ path: String) {
        #expect(MemberPath.steps(of: path) == nil)
    }
}

/// A reference type inside a default, to tell shared instances from fresh ones.
final class DefaultBox: Codable, @unchecked Sendable {
    // `@unchecked Sendable`: tests change `value` on one thread only.
    var value = 0
}

class BaseRecord: Codable, ArchiveDefaults {
    var name = "base"
    var added = "from base"  // added in version 2

    required init() {}
}

final class SubRecord: BaseRecord, @unchecked Sendable {
    // `@unchecked Sendable`: a test fixture, used on one thread.
    var size = 1

    private enum CodingKeys: String, CodingKey {
        case size
        case base
    }

    required init() { super.init() }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        size = try container.decode(Int.self, forKey: .size)
        try super.init(from: container.superDecoder(forKey: .base))
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(size, forKey: .size)
        try super.encode(to: container.superEncoder(forKey: .base))
    }
}

/// What a hostile reading of the app-update promises found, each kept as a test.
@Suite(.offThePool) struct AppUpdateEdgeTests {
    let directory = TemporaryDirectory()

    var url: URL { directory.file("state.json") }

    func write(_ state: String, version: Int = 1) throws {
        try Data(#"{"schemaVersion":\#(version),"state":\#(state)}"#.utf8).write(to: url)
    }

    func needsMigration<State: StateProtocol>(
        _ type: State.Type, sourceLocation: SourceLocation = #_sourceLocation
    ) -> (path: String, detail: String, migration: String)? {
        let error = #expect(throws: PersistenceError.self, sourceLocation: sourceLocation) {
            try StateArchive<State>(file: url).load()
        }
        guard case .needsMigration(let path, let detail, let migration)? = error?.kind else {
            Issue.record(
                "expected needsMigration, got \(String(describing: error))", sourceLocation: sourceLocation)
            return nil
        }
        return (path, detail, migration)
    }

    @Test func eachFilledObjectGetsItsOwnValueOfADefaultThatVaries() throws {
        struct Item: Codable, ArchiveDefaults {
            var title = ""
            var id = UUID()  // added
            var box = DefaultBox()  // added
        }
        struct State: StateProtocol, ArchiveDefaults { var items: [Item] = [] }
        try write(#"{"items":[{"title":"a"},{"title":"b"},{"title":"c"}]}"#)
        let items = try #require(try StateArchive<State>(file: url).load()).items
        #expect(Set(items.map(\.id)).count == 3)
        items[0].box.value = 99
        #expect(items[1].box.value == 0)
    }

    @Test func aDefaultThatDoesNotVaryIsStillAFreshInstanceInEachObject() throws {
        struct Item: Codable, ArchiveDefaults {
            var title = ""
            var box = DefaultBox()  // added
        }
        struct State: StateProtocol, ArchiveDefaults { var items: [Item] = [] }
        try write(#"{"items":[{"title":"a"},{"title":"b"}]}"#)
        let items = try #require(try StateArchive<State>(file: url).load()).items
        items[0].box.value = 7
        #expect(items[1].box.value == 0)
    }

    @Test func aRenameInATypeWithoutDefaultsIsAdvisedAsARename() throws {
        struct State: StateProtocol, Equatable {
            var name: String
            var count: Int
        }
        try write(#"{"title":"precious","count":1}"#)
        let found = needsMigration(State.self)
        // The archive cannot tell a rename from a removal beside an added member: the line asks.
        #expect(
            found?.migration
                == ##"ArchiveMigration(from: 1, renaming: <#"title", or delete this line#>, to: "name")"##)
        let migrated = StateArchive<State>(
            file: url, schemaVersion: 2,
            migrations: [ArchiveMigration(from: 1, renaming: "title", to: "name")])
        #expect(try migrated.load() == State(name: "precious", count: 1))
    }

    @Test func aSubclassDecodingThroughASuperDecoderIsFilled() throws {
        struct State: StateProtocol { var record: SubRecord }
        try write(#"{"record":{"size":3,"base":{"name":"kept"}}}"#)
        let record = try #require(try StateArchive<State>(file: url).load()).record
        #expect(record.size == 3)
        #expect(record.name == "kept")
        #expect(record.added == "from base")
    }

    @Test func aCustomDecoderReadingANestedContainerIsFilled() throws {
        struct Prefs: Codable, Equatable, ArchiveDefaults {
            var size = 12
            var theme = "light"  // added, inside the nested "display" object
            enum Keys: String, CodingKey { case display }
            enum DisplayKeys: String, CodingKey { case size, theme }
            init() {}
            init(from decoder: any Decoder) throws {
                let display = try decoder.container(keyedBy: Keys.self)
                    .nestedContainer(keyedBy: DisplayKeys.self, forKey: .display)
                size = try display.decode(Int.self, forKey: .size)
                theme = try display.decode(String.self, forKey: .theme)
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                var display = container.nestedContainer(keyedBy: DisplayKeys.self, forKey: .display)
                try display.encode(size, forKey: .size)
                try display.encode(theme, forKey: .theme)
            }
        }
        struct State: StateProtocol, Equatable { var prefs: Prefs }
        try write(#"{"prefs":{"display":{"size":20}}}"#)
        #expect(try StateArchive<State>(file: url).load()?.prefs.theme == "light")
        #expect(try StateArchive<State>(file: url).load()?.prefs.size == 20)
    }

    @Test func aMemberADefaultsTypeCannotFillIsNotBlamedOnAMissingConformance() throws {
        struct Item: Codable, ArchiveDefaults {
            var note: String
            init() { note = "x" }
            init(from decoder: any Decoder) throws {
                // Reads a member its own encoding never writes.
                let container = try decoder.container(keyedBy: AnyMemberKey.self)
                note = try container.decode(String.self, forKey: AnyMemberKey(stringValue: "legacyNote"))
            }
        }
        struct State: StateProtocol { var item: Item }
        try write(#"{"item":{}}"#)
        let found = needsMigration(State.self)
        #expect(found?.detail.contains("conform") == false, "\(found?.detail ?? "")")
        #expect(found?.detail.contains("gives no value") == true, "\(found?.detail ?? "")")
    }

    @Test func namesThatAPathMustEscapeGiveAMigrationThatWorksWhenPasted() throws {
        struct Line: Codable, Equatable { var name: String }
        struct Group: Codable, Equatable { var lines: [Line] }
        struct State: StateProtocol, Equatable {
            var group: Group
            enum CodingKeys: String, CodingKey { case group = "a.b[x]" }
        }
        try write(#"{"a.b[x]":{"lines":[{"ti\"tle":"kept"}]}}"#)
        let found = needsMigration(State.self)
        #expect(
            found?.migration
                == ##"ArchiveMigration(from: 1, renaming: <#"ti\"tle", or delete this line#>, to: "name", in: "a\\.b\\[x\\].lines[]")"##
        )
        let migrated = StateArchive<State>(
            file: url, schemaVersion: 2,
            migrations: [
                ArchiveMigration(from: 1, renaming: "ti\"tle", to: "name", in: "a\\.b\\[x\\].lines[]")
            ])
        #expect(try migrated.load() == State(group: Group(lines: [Line(name: "kept")])))
    }

    @Test func aCodingKeyTypeWhoseNameStartsWithAnUnderscoreIsAMemberNotADictionaryKey() throws {
        struct Inner: Codable { var name: String }
        struct State: StateProtocol {
            var bag: Inner
            enum _Keys: String, CodingKey { case bag }  // swiftlint:disable:this type_name
            init(from decoder: any Decoder) throws {
                bag = try decoder.container(keyedBy: _Keys.self).decode(Inner.self, forKey: .bag)
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: _Keys.self)
                try container.encode(bag, forKey: .bag)
            }
        }
        try write(#"{"bag":{"title":"x"}}"#)
        #expect(needsMigration(State.self)?.migration.contains(#"in: "bag""#) == true)
    }

    @Test func aMissingStructWithoutDefaultsGetsAPlaceholderNotAValueThatCompilesAndFails() throws {
        struct Sub: Codable { var x: Int }
        struct State: StateProtocol {
            var n: Int
            var sub: Sub
        }
        try write(#"{"n":1}"#)
        let migration = needsMigration(State.self)?.migration ?? ""
        #expect(migration.contains("<#"), "\(migration)")
    }

    @Test func aDefaultsTypesInitThatLoadsTheSameArchiveDoesNotDeadlock() async throws {
        let path = url
        struct Loader: Codable, ArchiveDefaults {
            static let location = LockedURL()
            var title = ""
            var added = 0
            init() {
                // Loads the archive being loaded, on the same thread, once.
                if let url = Self.location.take() { _ = try? StateArchive<Plain>(file: url).load() }
            }
        }
        struct Plain: StateProtocol { var loader: Loader? }
        struct State: StateProtocol { var loader: Loader }
        Loader.location.url = path
        defer { Loader.location.url = nil }
        try write(#"{"loader":{"title":"t"}}"#)
        let finished = onNewThread { _ = try? StateArchive<State>(file: path).load() }
        #expect(await onOwnThread { finished.wait(timeout: 20) })
    }

    @Test func aFixtureNullComesBackAsAnAbsentOptional() throws {
        struct State: StateProtocol, Equatable { var opt: Int? }
        try write(#"{"opt":null}"#)
        #expect(
            try StateArchive<State>(file: directory.file("live.json")).loadFixture(at: url) == State(opt: nil)
        )
    }

    @Test func aChangedArrayElementOfAFixtureGetsAGeneralMigration() throws {
        struct Halving: StateProtocol {
            var items: [Int]
            init(from decoder: any Decoder) throws {
                items = try decoder.container(keyedBy: CodingKeys.self).decode([Int].self, forKey: .items)
                    .map { $0 / 2 }
            }
        }
        try write(#"{"items":[4,6]}"#)
        let error = #expect(throws: PersistenceError.self) {
            try StateArchive<Halving>(file: directory.file("live.json")).loadFixture(at: url)
        }
        guard case .needsMigration(let path, _, let migration)? = error?.kind else {
            Issue.record("expected needsMigration, got \(String(describing: error))")
            return
        }
        #expect(path == "state.items[0]")
        #expect(migration.hasPrefix("ArchiveMigration(from: 1) { state in"), "\(migration)")
    }

    @Test func aRefusedSaveAfterAFailedLoadDoesNotAdviseARestoreThatAlreadyRan() throws {
        try write(#"{"count":"x"}"#)
        struct State: StateProtocol { var count: Int }
        // A backend of the app's own keeps no unmerged state beside the archive: saves are refused.
        let archive = StateArchive<State>(backend: MemoryBackend(try Data(contentsOf: url)))
        _ = archive.restore(default: State(count: 0)) { _, _ in }
        let error = #expect(throws: PersistenceError.self) { try archive.save(State(count: 1)) }
        #expect(error?.kind == .wouldOverwriteUnreadableArchive)
        #expect(error?.description.contains("restore(default:)") == false)
    }
}

/// A URL several threads may set and read.
final class LockedURL: @unchecked Sendable {
    // `@unchecked Sendable`: `stored` is only used while `lock` is held.
    private let lock = NSLock()
    private var stored: URL?

    var url: URL? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// The URL, which is cleared.
    func take() -> URL? {
        lock.withLock {
            defer { stored = nil }
            return stored
        }
    }
}
