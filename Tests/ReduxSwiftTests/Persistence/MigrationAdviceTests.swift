import Foundation
import Testing

@testable import ReduxSwift

// Version 1 of an expense tracker's state, as the previous release saved it.
enum ExpensesV1 {
    struct Expense: Codable, Equatable {
        var title: String
        var amount: Double
        var note: String
    }

    struct State: StateProtocol, Equatable {
        var expenses: [Expense] = []
    }
}

// Version 2: each expense gains tags and renames `note` to `memo`; the state gains a default
// currency. Neither type is `ArchiveDefaults`.
enum ExpensesV2 {
    struct Expense: Codable, Equatable {
        var title: String
        var amount: Double
        var tags: [String] = []
        var memo: String
    }

    struct State: StateProtocol, Equatable {
        var expenses: [Expense] = []
        var defaultCurrency = "EUR"
    }
}

/// A load of an archive that needs migrations names every change it needs, each with the line
/// that makes it, and pasting those lines loads every old value where it belongs.
@Suite(.offThePool) struct MigrationAdviceTests {
    let directory = TemporaryDirectory()

    var url: URL { directory.file("Expenses.json") }

    /// An item of version 2, whose optional `memo` was `note` before.
    struct Item: Codable, Equatable {
        var id: Int
        var memo: String?
    }

    /// The `index`th of a run of identifiers, the same at every launch.
    static func id(_ index: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", index))!
    }

    /// The choice that the advice for the expense tracker's rename asks for.
    /// The answers to the expense tracker's advice: the rename confirmed, and the value that
    /// `ExpensesV2.Expense` declares for its tags.
    static let renamedNote: [String: String?] = [
        #""note", or delete this line"#: "note", #""[]", or the value Expense declares"#: #""[]""#,
    ]

    static let v1 = ExpensesV1.State(expenses: [
        ExpensesV1.Expense(title: "Lunch", amount: 12.5, note: "with Ada"),
        ExpensesV1.Expense(title: "Train", amount: 31, note: "to Lyon"),
    ])

    func write(_ state: String, version: Int = 1) throws {
        try Data(#"{"schemaVersion":\#(version),"state":\#(state)}"#.utf8).write(to: url)
    }

    /// The error `body` throws, which must need migrations.
    func migrationError(
        sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
    ) -> PersistenceError? {
        let error = #expect(throws: PersistenceError.self, sourceLocation: sourceLocation) { try body() }
        guard case .needsMigration? = error?.kind else {
            Issue.record(
                "expected needsMigration, got \(String(describing: error))", sourceLocation: sourceLocation)
            return nil
        }
        return error
    }

    /// The error `restore(default:)` reports for the archive at `url`, read as `State`.
    func restoreError<State: StateProtocol>(_ defaultState: State) -> PersistenceError? {
        var reported: PersistenceError?
        _ = StateArchive<State>(file: url).restore(default: defaultState) { error, _ in reported = error }
        return reported
    }

    @Test func oneLoadNamesEveryChangeOfTheExpenseTrackersUpdate() throws {
        try StateArchive<ExpensesV1.State>(file: url).save(Self.v1)
        let before = try Data(contentsOf: url)
        let error = try #require(restoreError(ExpensesV2.State()))
        #expect(
            error.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 1, adding: "tags", json: <#"[]", or the value Expense declares#>, in: "expenses[]")"##,
                ##"ArchiveMigration(from: 1, renaming: <#"note", or delete this line#>, to: "memo", in: "expenses[]")"##,
                #"ArchiveMigration(from: 1, adding: "defaultCurrency", value: "EUR")"#,
            ])
        #expect(
            error.migrationProblems.map(\.path) == [
                "state.expenses[0].tags", "state.expenses[0].memo", "state.defaultCurrency",
            ])
        #expect(
            error.migrationProblems.map(\.kind) == [
                .missingMember, .renamedMember(from: ["note"]), .missingMember,
            ])
        // The kind names the first, as before.
        let first = try #require(error.migrationProblems.first)
        #expect(
            error.kind
                == .needsMigration(
                    path: "state.expenses[0].tags", detail: first.detail, migration: first.migration))
        // The archive is left as it was.
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aMemberMissingWithADeclaredDefaultIsAddedWithTheDefaultStatesValue() throws {
        try StateArchive<ExpensesV1.State>(file: url).save(Self.v1)
        let restored = try #require(restoreError(ExpensesV2.State()))
        let currency = try #require(restored.migrationProblems.first { $0.path == "state.defaultCurrency" })
        #expect(currency.migration == #"ArchiveMigration(from: 1, adding: "defaultCurrency", value: "EUR")"#)
        #expect(currency.detail.contains("default state"), "\(currency.detail)")
        // A default state whose currency is another says so.
        let other = try #require(restoreError(ExpensesV2.State(expenses: [], defaultCurrency: "CHF")))
        #expect(
            other.migrationProblems.contains {
                $0.migration == #"ArchiveMigration(from: 1, adding: "defaultCurrency", value: "CHF")"#
            })
    }

    struct Cell: Codable, Equatable {
        var name: String
        var width: Int
    }

    struct CellState: StateProtocol, Equatable { var cells: [UUID: Cell] = [:] }

    /// A default state whose UUID-keyed cells hold `widths`, one each.
    static func cells(widths: [Int]) -> CellState {
        CellState(
            cells: Dictionary(
                uniqueKeysWithValues: widths.enumerated().map {
                    (UUID(), Cell(name: "c\($0.offset)", width: $0.element))
                }))
    }

    /// Version 1's cells had no width; a `[UUID: Cell]` is archived as keys and values, in the
    /// order of a hash seeded anew in each process.
    func writeCellsWithoutWidths() throws {
        try write(
            #"{"cells":["2D5E2C3A-2B1A-4E39-9C57-1E0A4D7B6C11",{"name":"a"},"#
                + #""8F3B2A10-5C4D-4E6F-8A7B-9C0D1E2F3A4B",{"name":"b"}]}"#)
    }

    @Test func aDictionaryWhoseDefaultValuesDifferGivesNoneOfThemAsTheAddedValue() throws {
        try writeCellsWithoutWidths()
        // In a `[UUID: Cell]` the first value depends on the process's hash seed: none is taken.
        let error = try #require(restoreError(Self.cells(widths: Array(201...216))))
        #expect(
            error.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 1, adding: "width", value: <#0, or the value Cell declares#>, in: "cells[values]")"##
            ], "\(error)")
        // Where they agree, it is their value.
        let agreeing = try #require(restoreError(Self.cells(widths: [7, 7, 7])))
        #expect(
            agreeing.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 1, adding: "width", value: 7, in: "cells[values]")"##
            ], "\(agreeing)")
    }

    @Test func aMemberMissingWithoutADefaultStateIsAskedForShowingASampleOfItsType() throws {
        struct Limits: Codable, Equatable { var daily: Int }
        struct State: StateProtocol, Equatable {
            var title: String
            var flag: Bool
            var count: Int
            var ratio: Double
            var tags: [String]
            var names: [String: Int]
            var limits: Limits
        }
        try write(#"{"title":"kept"}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        #expect(
            error.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 1, adding: "flag", value: <#false, or the value State declares#>)"##,
                ##"ArchiveMigration(from: 1, adding: "count", value: <#0, or the value State declares#>)"##,
                ##"ArchiveMigration(from: 1, adding: "ratio", value: <#0, or the value State declares#>)"##,
                ##"ArchiveMigration(from: 1, adding: "tags", json: <#"[]", or the value State declares#>)"##,
                ##"ArchiveMigration(from: 1, adding: "names", json: <#"{}", or the value State declares#>)"##,
                "ArchiveMigration(from: 1, adding: \"limits\", json: <#a \(String(reflecting: Limits.self)) as JSON#>)",
            ])
        #expect(error.migrationProblems.allSatisfy { $0.kind == .missingMember })
    }

    @Test func aDefaultThatDiffersEachTimeIsNotOfferedAsAValue() throws {
        struct State: StateProtocol, Equatable {
            var title = ""
            var id = UUID()
        }
        try write(#"{"title":"kept"}"#)
        var reported: PersistenceError?
        _ = StateArchive<State>(file: url).restore(default: State()) { error, _ in reported = error }
        let problem = try #require(reported?.migrationProblems.first)
        #expect(
            problem.migration.hasPrefix(#"ArchiveMigration(from: 1, adding: "id", json: <#"#), "\(problem)")
        #expect(problem.detail.contains("differs each time"), "\(problem.detail)")
    }

    @Test func aUUIDOrDateDefaultIsNotOfferedAsAValueEvenFromOneDefaultStateMadeOnce() throws {
        struct State: StateProtocol, Equatable {
            var title = ""
            var sessionID = UUID()
            var opened = Date()
        }
        try write(#"{"title":"kept"}"#)
        let made = State()
        var reported: PersistenceError?
        _ = StateArchive<State>(file: url).restore(default: made) { error, _ in reported = error }
        let migrations = try #require(reported?.migrationProblems).map(\.migration).sorted()
        #expect(
            migrations == [
                #"ArchiveMigration(from: 1, adding: "opened", json: <#a \#(String(reflecting: Date.self)) as JSON#>)"#,
                #"ArchiveMigration(from: 1, adding: "sessionID", json: <#a \#(String(reflecting: UUID.self)) as JSON#>)"#,
            ], "\(migrations)")
    }

    @Test func renamesOfTwoTypesThatAnOldValueReadsAsAreOfferedToChooseNotGuessed() throws {
        struct LineV1: Codable {
            var units: Int
            var amount: Double
        }
        struct StateV1: StateProtocol { var lines: [LineV1] }
        struct LineV2: Codable, Equatable {
            var count: Int
            var price: Double
        }
        struct StateV2: StateProtocol, Equatable { var lines: [LineV2] }
        // `2.0` is saved as `2`, which reads as an `Int` as well as a `Double`.
        try StateArchive<StateV1>(file: url).save(StateV1(lines: [LineV1(units: 3, amount: 2)]))
        let error = try #require(migrationError { _ = try StateArchive<StateV2>(file: url).load() })
        let renames = error.migrationProblems.filter {
            if case .renamedMember = $0.kind { return true } else { return false }
        }
        #expect(renames.count == 2, "\(error.migrationProblems)")
        for rename in renames {
            #expect(
                rename.migration.contains("<#"), "a guessed pairing offered as certain: \(rename.migration)")
        }
    }

    @Test func twoRenamesOfTheSameTypeAreOfferedToChooseNotGuessed() throws {
        struct CardV1: Codable {
            var title: String
            var subtitle: String
        }
        struct StateV1: StateProtocol { var cards: [CardV1] }
        struct CardV2: Codable, Equatable {
            var name: String
            var caption: String
        }
        struct StateV2: StateProtocol, Equatable { var cards: [CardV2] }
        try StateArchive<StateV1>(file: url).save(
            StateV1(cards: [
                CardV1(title: "Kyoto", subtitle: "temples"), CardV1(title: "Oslo", subtitle: "fjords"),
            ]))

        let error = try #require(migrationError { _ = try StateArchive<StateV2>(file: url).load() })
        // JSONEncoder writes members in no fixed order, so the archive cannot tell which old
        // member became which new one: the advice asks, naming both and their values.
        // Each old member, offered by two lines, is asked about too: one that no line takes is
        // dropped only where the developer keeps its `removing:` line.
        let choice = ##"<#"subtitle" or "title"#>"##
        #expect(
            error.migrationProblems.map(\.migration) == [
                #"ArchiveMigration(from: 1, renaming: \#(choice), to: "name", in: "cards[]")"#,
                #"ArchiveMigration(from: 1, renaming: \#(choice), to: "caption", in: "cards[]")"#,
                ##"ArchiveMigration(from: 1, removing: <#"subtitle", or delete this line#>, in: "cards[]")"##,
                ##"ArchiveMigration(from: 1, removing: <#"title", or delete this line#>, in: "cards[]")"##,
            ])
        #expect(
            error.migrationProblems.map(\.kind)
                == Array(repeating: .renamedMember(from: ["subtitle", "title"]), count: 2)
                + [.removedMember, .removedMember])
        let detail = error.migrationProblems.first?.detail ?? ""
        #expect(
            detail.contains(#""title" ("Kyoto")"#) && detail.contains(#""subtitle" ("temples")"#), "\(detail)"
        )
        #expect(detail.contains("cannot tell"), "\(detail)")

        // Pasted with the developer's choice, every old value lands where it belongs.
        var lines = try #require(error.suggestedMigrations)
        lines = lines.replacingOccurrences(
            of: #"renaming: \#(choice), to: "name""#, with: #"renaming: "title", to: "name""#)
        lines = lines.replacingOccurrences(
            of: #"renaming: \#(choice), to: "caption""#, with: #"renaming: "subtitle", to: "caption""#)
        let archive = StateArchive<StateV2>(
            file: directory.file("live.json"), schemaVersion: 2,
            migrations: try PastedMigrations.migrations(
                lines,
                choices: [#""subtitle", or delete this line"#: nil, #""title", or delete this line"#: nil]))
        let loaded = try archive.loadFixture(at: url)
        #expect(
            loaded.cards == [
                CardV2(name: "Kyoto", caption: "temples"), CardV2(name: "Oslo", caption: "fjords"),
            ])
    }

    @Test func twoRenamesOfTheSameTypeInADefaultsTypeAreOfferedToChooseToo() throws {
        struct CardV2: Codable, Equatable, ArchiveDefaults {
            var name = ""
            var caption = ""
        }
        struct StateV2: StateProtocol, Equatable { var card: CardV2 }
        try write(#"{"card":{"title":"Kyoto","subtitle":"temples"}}"#)
        let error = try #require(migrationError { _ = try StateArchive<StateV2>(file: url).load() })
        #expect(
            error.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 1, renaming: <#"subtitle" or "title"#>, to: "name", in: "card")"##,
                ##"ArchiveMigration(from: 1, renaming: <#"subtitle" or "title"#>, to: "caption", in: "card")"##,
                ##"ArchiveMigration(from: 1, removing: <#"subtitle", or delete this line#>, in: "card")"##,
                ##"ArchiveMigration(from: 1, removing: <#"title", or delete this line#>, in: "card")"##,
            ])
    }

    @Test func aRenameAndAnAdditionOfTheSameTypeAreNotTakenForACertainRename() throws {
        struct Card: Codable, Equatable {
            var name: String
            var caption: String
        }
        struct State: StateProtocol, Equatable { var card: Card }
        try write(#"{"card":{"title":"Kyoto"}}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        let migrations = error.migrationProblems.map(\.migration)
        #expect(
            migrations.first
                == ##"ArchiveMigration(from: 1, renaming: <#"title", or delete this line#>, to: "name", in: "card")"##,
            "\(migrations)")
        #expect(error.migrationProblems.last?.detail.contains(#"renamed from "title""#) == true, "\(error)")
    }

    @Test func aRenameToAnOptionalIsCaught() throws {
        struct ExpenseV1: Codable { var note: String }
        struct StateV1: StateProtocol { var expenses: [ExpenseV1] }
        struct ExpenseV2: Codable, Equatable { var memo: String? }
        struct StateV2: StateProtocol, Equatable { var expenses: [ExpenseV2] }
        try StateArchive<StateV1>(file: url).save(
            StateV1(expenses: [ExpenseV1(note: "a"), ExpenseV1(note: "b")]))
        let before = try Data(contentsOf: url)

        let archive = StateArchive<StateV2>(file: url)
        let error = try #require(migrationError { _ = try archive.load() })
        // It asks: `memo` may as well be new beside a removed `note`.
        let migration =
            ##"ArchiveMigration(from: 1, renaming: <#"note", or delete this line#>, to: "memo", in: "expenses[]")"##
        #expect(error.migrationProblems.map(\.migration) == [migration])
        #expect(error.migrationProblems.first?.kind == .renamedMember(from: ["note"]))
        #expect(error.migrationProblems.first?.path == "state.expenses[0].memo")
        let detail = error.migrationProblems.first?.detail ?? ""
        #expect(
            detail.contains(#"ArchiveMigration(from: 1, removing: "note", in: "expenses[]")"#), "\(detail)")
        // The loss is never made permanent: the archive stays, and a save goes beside it.
        _ = archive.restore(default: StateV2(expenses: [])) { _, _ in }
        try archive.save(StateV2(expenses: []))
        #expect(try Data(contentsOf: url) == before)
        #expect(try archive.loadUnmerged() == nil, "the archive still needs its migration")
        #expect(FileManager.default.fileExists(atPath: url.path + ".unmerged"))

        let migrated = StateArchive<StateV2>(
            file: directory.file("live.json"), schemaVersion: 2,
            migrations: try error.pastedMigrations(choosing: [#""note", or delete this line"#: "note"]))
        #expect(try migrated.loadFixture(at: url).expenses.map(\.memo) == ["a", "b"])
    }

    @Test func aRenamedAssociatedValueLabelOfAnOptionalIsCaughtInsideTheEnumCase() throws {
        enum PayV1: Codable {
            case cash
            case card(last4: String?, brand: Int)
        }
        enum PayV2: Codable, Equatable {
            case cash
            case card(digits: String?, brand: Int)
        }
        struct StateV1: StateProtocol { var pays: [PayV1] }
        struct StateV2: StateProtocol, Equatable { var pays: [PayV2] }
        try StateArchive<StateV1>(file: url).save(
            StateV1(pays: [.card(last4: "4242", brand: 2), .cash, .card(last4: nil, brand: 3)]))

        let error = try #require(migrationError { _ = try StateArchive<StateV2>(file: url).load() })
        let migration =
            ##"ArchiveMigration(from: 1, renaming: <#"last4", or delete this line#>, to: "digits", in: "pays[].card")"##
        #expect(error.migrationProblems.map(\.migration) == [migration], "\(error)")
        let migrated = StateArchive<StateV2>(
            file: directory.file("live.json"), schemaVersion: 2,
            migrations: try error.pastedMigrations(choosing: [#""last4", or delete this line"#: "last4"]))
        #expect(
            try migrated.loadFixture(at: url).pays == [
                .card(digits: "4242", brand: 2), .cash, .card(digits: nil, brand: 3),
            ])
    }

    @Test func aRenameToAnOptionalInALargeArchiveIsCaughtByALaunchThatNeedsNothingElse() throws {
        struct State: StateProtocol, Equatable { var items: [Item] }
        let items = (0..<5_000).map { #"{"id":\#($0),"note":"n\#($0)"}"# }
        try write(#"{"items":[\#(items.joined(separator: ","))]}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        #expect(
            error.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 1, renaming: <#"note", or delete this line#>, to: "memo", in: "items[]")"##
            ])
    }

    @Test func aRenameToAnOptionalInADictionaryKeyedByUUIDIsCaughtByALaunchThatNeedsNothingElse() throws {
        struct State: StateProtocol, Equatable { var byID: [UUID: Item] }
        // Archived as keys and values: the first 4 values have no note, every later one has one.
        let entries = (0..<40).map { index in
            let id = Self.id(index)
            let note = index < 4 ? "" : #","note":"n\#(index)""#
            return #""\#(id.uuidString)",{"id":\#(index)\#(note)}"#
        }
        try write(#"{"byID":[\#(entries.joined(separator: ","))]}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        #expect(
            error.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 1, renaming: <#"note", or delete this line#>, to: "memo", in: "byID[values]")"##
            ])
    }

    @Test func aPlainLaunchLooksAtTheFirstAndLastPairsAndEightSpreadOverTheRestOfEveryArray() {
        let (first, spread) = (DefaultFilling.Sample.first, DefaultFilling.Sample.spread)
        for count in 0...600 {
            let pairs = (count + 1) / 2
            let sampled = (0..<pairs).filter { DefaultFilling.Sample.includes(2 * $0, of: count) }
            let between = max(0, pairs - 2 * first)
            let ends = Set(0..<min(first, pairs)).union(max(0, pairs - first)..<pairs)
            #expect(ends.isSubset(of: sampled), "\(count) elements")
            let middle = sampled.filter { !ends.contains($0) }
            #expect(middle.count == min(between, spread), "\(count) elements: \(middle)")
            // Evenly: no gap between the pairs looked at is more than twice another.
            let gaps = zip(middle.dropFirst(), middle).map { $0 - $1 }
            #expect((gaps.max() ?? 0) <= 2 * max(1, gaps.min() ?? 1), "\(count) elements: \(middle)")
            // Both elements of a pair alike.
            #expect(
                (0..<count).allSatisfy {
                    DefaultFilling.Sample.includes($0, of: count) == sampled.contains($0 / 2)
                })
        }
    }

    @Test func aRenameToAnOptionalInAnyMiddleValueOfASmallPairDictionaryIsCaughtByAPlainLaunch() throws {
        struct State: StateProtocol, Equatable { var byID: [UUID: Item] }
        // 20 values: 8 first, 8 last and the 4 between, all of which a launch looks at.
        for noted in 0..<20 {
            let entries = (0..<20).map { index in
                let id = Self.id(index)
                let note = index == noted ? #","note":"n\#(index)""# : ""
                return #""\#(id.uuidString)",{"id":\#(index)\#(note)}"#
            }
            try write(#"{"byID":[\#(entries.joined(separator: ","))]}"#)
            let error = migrationError { _ = try StateArchive<State>(file: url).load() }
            #expect(
                error?.migrationProblems.map(\.migration) == [
                    ##"ArchiveMigration(from: 1, renaming: <#"note", or delete this line#>, to: "memo", in: "byID[values]")"##
                ], "the note at value \(noted)")
        }
    }

    @Test func aRemovedEnumCaseIsNamedForEachMemberThatHoldsItWhateverTheDictionaryKeysAre() throws {
        enum Kind: String, Codable, Hashable { case home, work }  // "garden" removed
        struct State: StateProtocol, Equatable {
            var list: [Kind]
            var counts: [String: [Kind: Int]]
            var byUser: [UUID: Kind]
        }
        // Dictionaries keyed by an enum or a UUID are archived as keys and values.
        try write(
            #"{"list":["home","garden","work","garden"],"counts":{"a":["garden",1,"home",2],"b":["work",3]},"#
                + #""byUser":["00000000-0000-0000-0000-000000000003","work","#
                + #""00000000-0000-0000-0000-000000000001","garden"]}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        let details = error.migrationProblems.map(\.detail)
        #expect(details.allSatisfy { $0.contains("garden") && !$0.contains("stopped") }, "\(details)")
        let lines = try #require(error.suggestedMigrations).split(separator: "\n").map(String.init)
        #expect(
            Set(lines.dropFirst().dropLast()) == [
                #"    ArchiveMigration(from: 1, converting: "list") { old in <#old, with the element, as the current type reads it#> },"#,
                #"    ArchiveMigration(from: 1, converting: "counts") { old in <#old, with the element, as the current type reads it#> },"#,
                #"    ArchiveMigration(from: 1, converting: "byUser") { old in <#old, with the element, as the current type reads it#> },"#,
            ])
        #expect(lines.count == 5, "one line each: \(lines)")
    }

    @Test func aRenameToAnOptionalThatOnlyTheLastItemsHoldIsCaughtByALaunchThatNeedsNothingElse() throws {
        struct Item: Codable, Equatable {
            var id: Int
            var memo: String?  // "note" before, which only items added lately have
        }
        struct State: StateProtocol, Equatable { var items: [Item] }
        let items = (0..<1_000).map { $0 < 995 ? #"{"id":\#($0)}"# : #"{"id":\#($0),"note":"n\#($0)"}"# }
        try write(#"{"items":[\#(items.joined(separator: ","))]}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        #expect(
            error.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 1, renaming: <#"note", or delete this line#>, to: "memo", in: "items[]")"##
            ])
    }

    @Test func aLaunchThatNeedsNothingElseLooksAtEveryValueOfASmallDictionaryWhateverTheirOrder() throws {
        struct State: StateProtocol, Equatable { var byName: [String: Item] }
        for holder in 0..<16 {
            let values = (0..<16).map { index in
                #""k\#(index)":{"id":\#(index)\#(index == holder ? #","note":"n""# : "")}"#
            }
            try write(#"{"byName":{\#(values.joined(separator: ","))}}"#)
            let error = migrationError { _ = try StateArchive<State>(file: url).load() }
            #expect(error?.migrationProblems.count == 1, "the note of value \(holder)")
        }
    }

    @Test func aLargeDictionaryIsSampledByItsKeysAloneSoEveryLaunchLooksAtTheSameValues() {
        let keys = (0..<1_000).map { "key \($0)" }
        let sampled = keys.filter { DefaultFilling.Sample.includes(key: $0, of: keys.count) }
        #expect((8...40).contains(sampled.count), "\(sampled.count) of 1,000")
        #expect(keys.filter { DefaultFilling.Sample.includes(key: $0, of: keys.count) } == sampled)
        // FNV-1a of the key's UTF-8, which no process seeds: these are the values every launch takes.
        #expect(Array(sampled.prefix(3)) == ["key 80", "key 125", "key 251"])
    }

    @Test func aRenameInsideADictionaryKeyedByStructsNeverOffersAMemberOfTheKeys() throws {
        struct Key: Codable, Hashable {
            var x: Int
            var y: String
        }
        struct Item: Codable, Equatable {
            var name: String
            var memo: String?  // "note" before
        }
        struct State: StateProtocol, Equatable { var byKey: [Key: Item] }
        // Archived as keys and values, both objects at "byKey[]".
        try write(
            #"{"byKey":[{"x":1,"y":"a"},{"name":"tea","note":"green"},{"x":2,"y":"b"},{"name":"oats"}]}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        #expect(
            error.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 1, renaming: <#"note", or delete this line#>, to: "memo", in: "byKey[values]")"##
            ])
        #expect(error.migrationProblems.allSatisfy { !$0.detail.contains(#""y""#) }, "\(error)")
    }

    @Test(arguments: [false, true])
    func aRenameInsideADictionaryWhoseStructKeysShareTheMemberNameRenamesOnlyTheValues(
        besideAMigrationOfTheWholeState: Bool
    ) throws {
        struct Key: Codable, Hashable {
            var note: String
            var rank: Int
        }
        struct ItemV1: Codable {
            var name: String
            var note: String
        }
        struct ItemV2: Codable, Equatable {
            var name: String
            var memo: String  // "note" in version 1
        }
        struct StateV1: StateProtocol { var byKey: [Key: ItemV1] }
        struct StateV2: StateProtocol, Equatable { var byKey: [Key: ItemV2] }
        let keys = (0..<40).map { Key(note: "key \($0)", rank: $0) }
        try StateArchive<StateV1>(file: url).save(
            StateV1(
                byKey: Dictionary(
                    uniqueKeysWithValues: keys.map { ($0, ItemV1(name: "n\($0.rank)", note: "v\($0.rank)")) })
            ))
        let error = try #require(migrationError { _ = try StateArchive<StateV2>(file: url).load() })
        #expect(
            error.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 1, renaming: <#"note", or delete this line#>, to: "memo", in: "byKey[values]")"##
            ])
        // Pasted, the rename leaves every key's own "note" as it was.
        var migrations = try error.pastedMigrations(choosing: [#""note", or delete this line"#: "note"])
        if besideAMigrationOfTheWholeState { migrations.append(ArchiveMigration(from: 1) { _ in }) }
        let pasted = StateArchive<StateV2>(file: url, schemaVersion: 2, migrations: migrations)
        #expect(
            try pasted.loadFixture(at: url)
                == StateV2(
                    byKey: Dictionary(
                        uniqueKeysWithValues: keys.map {
                            ($0, ItemV2(name: "n\($0.rank)", memo: "v\($0.rank)"))
                        })))
    }

    @Test func aRenameToAnOptionalInsideADictionaryWhoseStructKeysHoldTheOldNameIsCaughtByAPlainLaunch()
        throws
    {
        struct Key: Codable, Hashable { var note: String }
        struct Item: Codable, Equatable {
            var id: Int
            var memo: String?  // "note" before; every key holds a "note" of its own
        }
        struct State: StateProtocol, Equatable { var byKey: [Key: Item] }
        let entries = (0..<40).map { #"{"note":"k\#($0)"},{"id":\#($0),"note":"v\#($0)"}"# }
        try write(#"{"byKey":[\#(entries.joined(separator: ","))]}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        #expect(
            error.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 1, renaming: <#"note", or delete this line#>, to: "memo", in: "byKey[values]")"##
            ])
    }

    @Test func changesInsideNestedDictionariesWithStructKeysAreAdvisedForTheValuesAndPastedLoadEveryValue()
        throws
    {
        struct Key: Codable, Hashable {
            var note: String
            var count: Int
        }
        enum Size: String, Codable { case small, large }  // "medium" removed
        struct ItemV1: Codable {
            var note: String
            var size: String
        }
        struct ItemV2: Codable, Equatable {
            var memo: String  // "note" in version 1
            var size: Size
            var count: Int  // added, with no default
        }
        struct StateV1: StateProtocol {
            var groups: [[Key: ItemV1]]
            var byName: [String: [Key: ItemV1]]
        }
        struct StateV2: StateProtocol, Equatable {
            var groups: [[Key: ItemV2]]
            var byName: [String: [Key: ItemV2]]
        }
        let keys = (0..<6).map { Key(note: "key \($0)", count: $0) }
        func v1(_ sizes: [String]) -> [Key: ItemV1] {
            Dictionary(
                uniqueKeysWithValues: zip(keys, sizes).map { ($0, ItemV1(note: "v\($0.count)", size: $1)) })
        }
        let sizes = ["small", "large", "small", "large", "small", "large"]
        try StateArchive<StateV1>(file: url).save(
            StateV1(groups: [v1(sizes), v1(sizes)], byName: ["a": v1(sizes), "b": v1(sizes)]))
        let error = try #require(migrationError { _ = try StateArchive<StateV2>(file: url).load() })
        let migrations = error.migrationProblems.map(\.migration)
        #expect(migrations.allSatisfy { $0.contains("[values]") && !$0.contains("[keys]") }, "\(migrations)")
        #expect(migrations.contains { $0.contains(#"to: "memo", in: "groups[][values]""#) }, "\(migrations)")
        #expect(migrations.contains { $0.contains(#"to: "memo", in: "byName[][values]""#) }, "\(migrations)")
        #expect(
            migrations.contains(
                ##"ArchiveMigration(from: 1, adding: "count", value: <#0, or the value ItemV2 declares#>, in: "groups[][values]")"##
            ),
            "\(migrations)")
        let pasted = StateArchive<StateV2>(
            file: url, schemaVersion: 2,
            migrations: try error.pastedMigrations(choosing: [
                #""note", or delete this line"#: "note", "0, or the value ItemV2 declares": "0",
            ]))
        func v2() -> [Key: ItemV2] {
            Dictionary(
                uniqueKeysWithValues: zip(keys, sizes).map {
                    ($0, ItemV2(memo: "v\($0.count)", size: Size(rawValue: $1)!, count: 0))
                })
        }
        #expect(
            try pasted.loadFixture(at: url) == StateV2(groups: [v2(), v2()], byName: ["a": v2(), "b": v2()]))
    }

    @Test func aNullStateIsDamageNotAnOlderVersionSoItIsNeverGivenAMigration() throws {
        struct State: StateProtocol, Equatable { var count = 0 }
        try write("null")
        let before = try Data(contentsOf: url)
        let error = #expect(throws: PersistenceError.self) { try StateArchive<State>(file: url).load() }
        guard case .wrongShape(let detail)? = error?.kind else {
            Issue.record("expected wrongShape, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("null"), "\(detail)")
        #expect(error?.migrationProblems.isEmpty == true)
        #expect(try Data(contentsOf: url) == before)
        // A launch sets it aside, as damage, and saves in its place.
        var keptAt: String?
        let state = StateArchive<State>(file: url).restore(default: State(count: 4)) { _, kept in
            keptAt = kept
        }
        #expect(state == State(count: 4))
        let kept = try #require(keptAt)
        #expect(kept.contains(".corrupt-"), "\(kept)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: kept)) == before)
    }

    @Test func anArchiveOfVersion0IsNeverAdvisedToSetSchemaVersionTo0() throws {
        struct State: StateProtocol, Equatable { var count = 0 }
        try write(#"{"count":3}"#, version: 0)
        let error = #expect(throws: PersistenceError.self) { try StateArchive<State>(file: url).load() }
        #expect(error?.kind == .missingMigration(from: 0))
        let text = error.map { "\($0) \($0.migrationProblems.map(\.detail))" } ?? ""
        #expect(!text.contains("schemaVersion to 0"), "\(text)")
        // The migration it does suggest loads the archive.
        let migrated = StateArchive<State>(file: url, migrations: [ArchiveMigration(from: 0) { _ in }])
        #expect(try migrated.load() == State(count: 3))
    }

    /// A tree of nodes 40 levels deep, each of whose objects renamed "old" to "new": 40 renames,
    /// each at a place of its own.
    struct DeepNode: Codable, Equatable {
        var new: String
        var next: [DeepNode]
    }

    struct DeepState: StateProtocol, Equatable { var root: DeepNode }

    func writeDeepArchiveOf40Renames() throws {
        var json = #"{"old":"v39","next":[]}"#
        for level in (0..<39).reversed() { json = #"{"old":"v\#(level)","next":[\#(json)]}"# }
        try write(#"{"root":\#(json)}"#)
    }

    @Test func oneLaunchNamesMoreThan32ChangesOfASmallArchive() throws {
        try writeDeepArchiveOf40Renames()
        let error = try #require(migrationError { _ = try StateArchive<DeepState>(file: url).load() })
        #expect(error.migrationProblems.count == 40, "\(error.migrationProblems.count)")
        #expect(!error.description.contains("more may follow"))
        var expected = DeepNode(new: "v39", next: [])
        for level in (0..<39).reversed() { expected = DeepNode(new: "v\(level)", next: [expected]) }
        let pasted = StateArchive<DeepState>(
            file: url, schemaVersion: 2,
            migrations: try error.pastedMigrations(choosing: [#""old", or delete this line"#: "old"]))
        #expect(try pasted.loadFixture(at: url) == DeepState(root: expected))
    }

    @Test func aReleaseBuildNamesTheFirstChangeAndSaysADebugBuildNamesEveryOne() throws {
        try writeDeepArchiveOf40Renames()
        let error = try #require(
            migrationError {
                try MigrationSurvey.$looksPastTheFirstChange.withValue(false) {
                    _ = try StateArchive<DeepState>(file: url).load()
                }
            })
        #expect(error.migrationProblems.count == 1)
        #expect(
            error.description.contains("a load or restore in a debug build names every change"))
        #expect(
            error.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 1, renaming: <#"old", or delete this line#>, to: "new", in: "root")"##
            ])
    }

    struct KeyedValue: Codable, Equatable {
        var memo: String
        var amount: Int
    }

    struct KeyedState: StateProtocol, Equatable { var values: [String: KeyedValue] = [:] }

    /// An archive of 200 values under string keys: the value under `k000` still has its old
    /// member `note`, and every other value an amount written as a string. `JSONDecoder` reads a
    /// dictionary's values in an order seeded anew in each process.
    func writeKeyedArchiveOfTwoChanges() throws {
        var members = (1..<200).map { #""k\#(String(format: "%03d", $0))":{"memo":"m","amount":"\#($0)"}"# }
        members.append(#""k000":{"note":"old","amount":0}"#)
        try write(#"{"values":{\#(members.joined(separator: ","))}}"#)
    }

    @Test func aReleaseBuildNamesTheChangeOfADictionarysFirstKeyAtEveryLaunch() throws {
        try writeKeyedArchiveOfTwoChanges()
        let error = try #require(
            migrationError {
                try MigrationSurvey.$looksPastTheFirstChange.withValue(false) {
                    _ = try StateArchive<KeyedState>(file: url).load()
                }
            })
        #expect(
            error.migrationProblems.map(\.path) == ["state.values.k000.memo"],
            "\(error)")
    }

    @Test func aDebugBuildListsADictionarysChangesInTheOrderOfItsKeysAtEveryLaunch() throws {
        try writeKeyedArchiveOfTwoChanges()
        let error = try #require(migrationError { _ = try StateArchive<KeyedState>(file: url).load() })
        #expect(
            error.migrationProblems.map(\.path) == [
                "state.values.k000.memo", "state.values.k000.note", "state.values.k001.amount",
            ],
            "\(error)")
    }

    struct LineV2: Codable, Equatable {
        var title: String
        var quantity: Int
        var memo: String
    }

    struct OrderState: StateProtocol, Equatable { var lines: [LineV2] = [] }

    /// Version 1's lines held `count` as a string and `note`; version 2 reads `quantity` as an
    /// integer and `memo`.
    func writeLinesWhoseCountBecameAQuantity() throws {
        try write(
            #"{"lines":[{"title":"Tea","count":"3","note":"green"},{"title":"Rice","count":"1","note":"brown"}]}"#
        )
    }

    @Test func aMemberNoRenameCanTakeIsAskedAboutNotDroppedUnasked() throws {
        try writeLinesWhoseCountBecameAQuantity()
        let error = try #require(migrationError { _ = try StateArchive<OrderState>(file: url).load() })
        let removals = error.migrationProblems.filter { $0.kind == .removedMember }
        #expect(
            removals.map(\.migration) == [
                ##"ArchiveMigration(from: 1, removing: <#"count", or delete this line#>, in: "lines[]")"##,
                ##"ArchiveMigration(from: 1, removing: <#"note", or delete this line#>, in: "lines[]")"##,
            ], "\(error)")
        #expect(
            removals.first?.detail.contains(
                ##"ArchiveMigration(from: 1, renaming: "count", to: <#"memo" or "quantity"#>, in: "lines[]")"##
            )
                == true, "\(error)")
        // Answered as a developer who keeps `note` as `memo` and drops `count` on purpose.
        let answers: [String: String?] = [
            #""count" or "note""#: #""note""#, #"0, or the value LineV2 declares"#: "0",
            #""count", or delete this line"#: #""count""#, #""note", or delete this line"#: nil,
        ]
        let pasted = StateArchive<OrderState>(
            file: url, schemaVersion: 2, migrations: try error.pastedMigrations(choosing: answers))
        #expect(
            try pasted.load()
                == OrderState(lines: [
                    LineV2(title: "Tea", quantity: 0, memo: "green"),
                    LineV2(title: "Rice", quantity: 0, memo: "brown"),
                ]))
    }

    @Test func aMemberThatNoLineOffersBesideARenameIsAskedAbout() throws {
        struct Address: Codable, Equatable {
            var line1: String
            var rebate: String?
        }
        struct State: StateProtocol, Equatable { var addresses: [Address] }
        // Version 1 held `street` and an integer `discount`: `rebate` is no candidate for it.
        try write(#"{"addresses":[{"street":"Main St","discount":21},{"street":"High St"}]}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        #expect(
            error.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 1, renaming: <#"street", or delete this line#>, to: "line1", in: "addresses[]")"##,
                ##"ArchiveMigration(from: 1, removing: <#"discount", or delete this line#>, in: "addresses[]")"##,
            ], "\(error)")
    }

    @Test func aMemberOnlyLaterObjectsHoldIsAskedAboutToo() throws {
        struct Row: Codable, Equatable {
            var id: Int
            var memo: String
        }
        struct State: StateProtocol, Equatable { var rows: [Row] }
        // Version 1's optional `note` is nil, so absent, in the first row the decode fails on.
        try write(#"{"rows":[{"id":0},{"id":1,"note":"n1"},{"id":2},{"id":3,"note":"n3"}]}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        #expect(
            error.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 1, adding: "memo", value: <#"", or the value Row declares#>, in: "rows[]")"##,
                ##"ArchiveMigration(from: 1, removing: <#"note", or delete this line#>, in: "rows[]")"##,
            ], "\(error)")
        let removal = try #require(error.migrationProblems.last)
        #expect(removal.detail.contains(#""note" ("n1")"#), "\(removal.detail)")
    }

    @Test func aRemovedMemberOnlyLaterValuesOfADictionaryHoldIsAskedAbout() throws {
        struct Address: Codable, Equatable { var line1: String }
        struct State: StateProtocol, Equatable {
            var addresses: [Address]
            var byID: [UUID: Address]
        }
        try write(
            #"{"addresses":[{"street":"a"},{"street":"b","discount":5}],"#
                + #""byID":["00000000-0000-0000-0000-000000000001",{"street":"c"},"#
                + #""00000000-0000-0000-0000-000000000002",{"street":"d","discount":10}]}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        let removals = error.migrationProblems.filter { $0.kind == .removedMember }.map(\.migration)
        #expect(
            removals == [
                ##"ArchiveMigration(from: 1, removing: <#"discount", or delete this line#>, in: "addresses[]")"##,
                ##"ArchiveMigration(from: 1, removing: <#"discount", or delete this line#>, in: "byID[values]")"##,
            ], "\(error)")
    }

    @Test func aCaseRemovedInsideTheValuesOfAStructKeyedDictionaryLeavesItsKeysAlone() throws {
        struct Key: Codable, Hashable {
            var note: String
            var n: Int
        }
        enum Status: String, Codable { case open, done }
        struct State: StateProtocol, Equatable { var x: [Key: [Status]] }
        // Version 1's status had an `archived` case; its keys are unchanged.
        try write(
            #"{"x":[{"note":"k","n":1},["open","archived","done"],{"note":"k","n":2},["archived","done"]]}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        #expect(error.migrationProblems.count == 1, "\(error)")
        #expect(
            !error.migrationProblems.contains { $0.path.contains(".n") || $0.path.contains(".note") },
            "\(error)")
    }

    @Test func aReleaseBuildsPartialAdviceAsksToRemoveNothing() throws {
        struct Money: Codable, Equatable {
            var value: Double
            var memo: String
        }
        struct State: StateProtocol, Equatable { var money: [Money] }
        try write(#"{"money":[{"amount":1.5,"note":"a"}]}"#)
        let error = try #require(
            migrationError {
                try MigrationSurvey.$looksPastTheFirstChange.withValue(false) {
                    _ = try StateArchive<State>(file: url).load()
                }
            })
        // Before the search reaches the end, `note` may be what a later change renames.
        #expect(!error.migrationProblems.contains { $0.kind == .removedMember }, "\(error)")
    }

    @Test func membersThatSwappedNamesAndTypesAreEachAskedAboutWithTheRenameAndConversion() throws {
        struct Line: Codable, Equatable {
            var quantity: Int
            var dimension: String
            var memo: String
        }
        struct State: StateProtocol, Equatable { var lines: [Line] }
        // `count` (a string) became `quantity` (an integer), and `size` (an integer) became
        // `dimension` (a string): by type, the archive offers `size` for `quantity`.
        try write(#"{"lines":[{"count":"30","size":70,"note":"n"}]}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        let removals = error.migrationProblems.filter { $0.kind == .removedMember }.map(\.path)
        #expect(removals == ["state.lines[0].count", "state.lines[0].note"], "\(error)")
        let quantity = try #require(error.migrationProblems.first { $0.path == "state.lines[0].quantity" })
        #expect(quantity.migration.contains(##"renaming: <#"size", or delete this line#>"##), "\(quantity)")
        #expect(
            quantity.detail.contains(
                ##"ArchiveMigration(from: 1, converting: "quantity", in: "lines[]") { old in"##),
            "\(quantity)")
        // Renamed and converted as the details say, every value lands.
        let migrations = [
            ArchiveMigration(from: 1, renaming: "note", to: "memo", in: "lines[]"),
            ArchiveMigration(from: 1, renaming: "count", to: "quantity", in: "lines[]"),
            ArchiveMigration(from: 1, converting: "quantity", in: "lines[]") { old in
                Int(old as? String ?? "") ?? 0
            },
            ArchiveMigration(from: 1, renaming: "size", to: "dimension", in: "lines[]"),
            ArchiveMigration(from: 1, converting: "dimension", in: "lines[]") { old in "\(old)" },
        ]
        let loaded = try StateArchive<State>(file: url, schemaVersion: 2, migrations: migrations).load()
        #expect(loaded == State(lines: [Line(quantity: 30, dimension: "70", memo: "n")]))
    }

    @Test func aMemberThatChangedItsNameAndTypeLoadsRenamedAndConvertedAsTheAdviceSays() throws {
        try writeLinesWhoseCountBecameAQuantity()
        let migrations = [
            ArchiveMigration(from: 1, renaming: "note", to: "memo", in: "lines[]"),
            ArchiveMigration(from: 1, renaming: "count", to: "quantity", in: "lines[]"),
            ArchiveMigration(from: 1, converting: "quantity", in: "lines[]") { old in
                Int(old as? String ?? "") ?? 0
            },
        ]
        let loaded = try StateArchive<OrderState>(file: url, schemaVersion: 2, migrations: migrations).load()
        #expect(
            loaded
                == OrderState(lines: [
                    LineV2(title: "Tea", quantity: 3, memo: "green"),
                    LineV2(title: "Rice", quantity: 1, memo: "brown"),
                ]))
    }

    @Test func aRenameTheArchiveCannotPairDoesNotStopTheSearch() throws {
        struct Card: Codable, Equatable, ArchiveDefaults {
            var name = ""
            var caption = ""
        }
        struct State: StateProtocol, Equatable {
            var card: Card
            var count: Int  // added, with no default
        }
        try write(#"{"card":{"title":"Kyoto"}}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        #expect(
            error.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 1, renaming: <#"title", or delete this line#>, to: "name", in: "card")"##,
                ##"ArchiveMigration(from: 1, renaming: <#"title", or delete this line#>, to: "caption", in: "card")"##,
                ##"ArchiveMigration(from: 1, removing: <#"title", or delete this line#>, in: "card")"##,
                ##"ArchiveMigration(from: 1, adding: "count", value: <#0, or the value State declares#>)"##,
            ])
    }

    @Test func aRenameToAnOptionalIsCaughtAfterMigrationsToo() throws {
        struct StateV2: StateProtocol, Equatable {
            var memo: String?
            var count: Int
        }
        try write(#"{"note":"kept","n":3}"#)
        let archive = StateArchive<StateV2>(
            file: url, schemaVersion: 2, migrations: [ArchiveMigration(from: 1, renaming: "n", to: "count")])
        let error = try #require(migrationError { _ = try archive.load() })
        #expect(
            error.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 2, renaming: <#"note", or delete this line#>, to: "memo")"##
            ])
        #expect(error.migrationProblems.first?.detail.hasPrefix("after migrating to version 2") == true)
    }

    @Test func anAbsentOptionalWithNothingUnreadOfItsTypeStillLoadsAsNil() throws {
        struct Profile: Codable, Equatable {
            var name: String
            var nickname: String?  // "nick" before
        }
        struct State: StateProtocol, Equatable {
            var title: String
            var memo: String?  // added: nothing unread beside it reads as a String
            var profile: Profile
        }
        try write(#"{"title":"a","legacyCount":4,"profile":{"name":"Ada","nick":"A"}}"#)
        // Only the optional with an unread member of its type beside it is a rename.
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        #expect(
            error.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 1, renaming: <#"nick", or delete this line#>, to: "nickname", in: "profile")"##
            ])
        let migrated = StateArchive<State>(
            file: url, schemaVersion: 2,
            migrations: try error.pastedMigrations(choosing: [#""nick", or delete this line"#: "nick"]))
        #expect(
            try migrated.load() == State(title: "a", memo: nil, profile: Profile(name: "Ada", nickname: "A")))
    }

    @Test func aMemberRemovedBesideAnAddedOptionalIsAdvisedWithTheRemovalTooAndIsNotBlockedForever() throws {
        struct State: StateProtocol, Equatable {
            var title: String
            var nickname: String?  // added; "legacy" was removed
        }
        try write(#"{"title":"a","legacy":"old"}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        let removal = #"ArchiveMigration(from: 1, removing: "legacy")"#
        #expect(error.migrationProblems.first?.detail.contains(removal) == true)
        let archive = StateArchive<State>(
            file: url, schemaVersion: 2, migrations: [try #require(try PastedMigrations.migration(removal))])
        #expect(try archive.load() == State(title: "a", nickname: nil))
        try archive.save(State(title: "b", nickname: nil))
        #expect(try archive.load() == State(title: "b", nickname: nil))
    }

    @Test func aRemovedMemberBesideAnOptionalThatOtherObjectsHoldLoadsAndKeepsEveryValue() throws {
        // Version 1 had `opt` and `comment`; version 2 removes `comment` and nothing else. `opt`
        // is `nil` in some items, which `JSONEncoder` writes by leaving the member out.
        struct ItemV1: Codable {
            var id: Int
            var opt: String?
            var comment: String
        }
        struct StateV1: StateProtocol {
            var items: [ItemV1]
            var byName: [String: [ItemV1]]
        }
        struct Item: Codable, Equatable {
            var id: Int
            var opt: String?
        }
        struct State: StateProtocol, Equatable {
            var items: [Item]
            var byName: [String: [Item]]
        }
        let old = (0..<3_000).map { ItemV1(id: $0, opt: $0 % 3 == 0 ? nil : "kept \($0)", comment: "c\($0)") }
        try StateArchive<StateV1>(file: url).save(
            StateV1(items: old, byName: ["a": [old[0]], "b": [old[1], old[3]]]))
        let expected = old.map { Item(id: $0.id, opt: $0.opt) }

        let loaded = try #require(try StateArchive<State>(file: url).load())
        #expect(loaded.items == expected)
        #expect(loaded.byName == ["a": [expected[0]], "b": [expected[1], expected[3]]])
    }

    @Test func anOptionalOtherObjectsHoldIsNeverAdvisedAsARenameTarget() throws {
        // Version 2 renames `title` to `name` and removes `comment`; `opt` was there before and is
        // `nil` in the first item only.
        struct ItemV1: Codable {
            var title: String
            var opt: String?
            var comment: String
        }
        struct StateV1: StateProtocol { var items: [ItemV1] }
        struct Item: Codable, Equatable {
            var name: String
            var opt: String?
        }
        struct State: StateProtocol, Equatable { var items: [Item] }
        let old = (0..<20).map { ItemV1(title: "t\($0)", opt: $0 == 0 ? nil : "o\($0)", comment: "c\($0)") }
        try StateArchive<StateV1>(file: url).save(StateV1(items: old))

        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        #expect(!error.migrationProblems.contains { $0.path.hasSuffix(".opt") }, "\(error.migrationProblems)")
        #expect(!error.migrationProblems.map(\.migration).joined().contains(#"to: "opt""#))
    }

    @Test func aRenameIsCertainOnlyWhenNoObjectAtItsPlaceHoldsAnotherCandidate() throws {
        // Version 2 renames `title` to `name` and removes `legacy`. The first item's title was
        // `nil`, so that item alone holds one candidate; the others hold both.
        struct ItemV1: Codable {
            var title: String?
            var legacy: String?
            var n: Int
        }
        struct StateV1: StateProtocol { var items: [ItemV1] }
        struct Item: Codable, Equatable {
            var name: String?
            var n: Int
        }
        struct State: StateProtocol, Equatable { var items: [Item] }
        let old = (0..<10).map { ItemV1(title: $0 == 0 ? nil : "t\($0)", legacy: "L\($0)", n: $0) }
        try StateArchive<StateV1>(file: url).save(StateV1(items: old))

        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        let lines = error.migrationProblems.map(\.migration)
        #expect(!lines.contains(#"ArchiveMigration(from: 1, renaming: "legacy", to: "name", in: "items[]")"#))
        #expect(
            lines.contains(
                ##"ArchiveMigration(from: 1, renaming: <#"legacy" or "title"#>, to: "name", in: "items[]")"##),
            "\(lines)")
        let chosen = [
            ArchiveMigration(from: 1, renaming: "title", to: "name", in: "items[]"),
            ArchiveMigration(from: 1, removing: "legacy", in: "items[]"),
        ]
        let migrated = StateArchive<State>(file: url, schemaVersion: 2, migrations: chosen)
        #expect(try migrated.load()?.items == old.map { Item(name: $0.title, n: $0.n) })
    }

    @Test func aRenameToAMemberWithNoDefaultOrWithADefaultIsCertainOnlyAcrossEveryObjectToo() throws {
        struct ItemV1: Codable {
            var title: String?
            var legacy: String?
        }
        struct StateV1: StateProtocol { var items: [ItemV1] }
        struct Plain: Codable, Equatable { var name: String }
        struct PlainState: StateProtocol, Equatable { var items: [Plain] }
        struct Filled: Codable, Equatable, ArchiveDefaults { var name = "" }
        struct FilledState: StateProtocol, Equatable { var items: [Filled] }
        // Only the 151st item holds a title: every other one holds one candidate.
        let old = (0..<200).map { ItemV1(title: $0 == 150 ? "t" : nil, legacy: "L\($0)") }
        try StateArchive<StateV1>(file: url).save(StateV1(items: old))
        let certain = #"ArchiveMigration(from: 1, renaming: "legacy", to: "name", in: "items[]")"#

        let plain = try #require(migrationError { _ = try StateArchive<PlainState>(file: url).load() })
        #expect(!plain.migrationProblems.map(\.migration).contains(certain), "\(plain.migrationProblems)")
        let filled = try #require(migrationError { _ = try StateArchive<FilledState>(file: url).load() })
        #expect(!filled.migrationProblems.map(\.migration).contains(certain), "\(filled.migrationProblems)")
    }

    @Test func aMemberRemovedBesideAnAddedMemberWithADefaultIsAskedAboutAndEitherAnswerLoadsAsMeant()
        throws
    {
        struct ItemV1: Codable {
            var id: Int
            var legacy: String
        }
        struct StateV1: StateProtocol { var items: [ItemV1] }
        struct ItemV2: Codable, Equatable, ArchiveDefaults {
            var id = 0
            var tag = "none"
        }
        struct StateV2: StateProtocol, Equatable { var items: [ItemV2] }
        try StateArchive<StateV1>(file: url).save(
            StateV1(items: (0..<5).map { ItemV1(id: $0, legacy: "old \($0)") }))

        let error = try #require(migrationError { _ = try StateArchive<StateV2>(file: url).load() })
        #expect(
            error.migrationProblems.map(\.migration) == [
                #"ArchiveMigration(from: 1, renaming: <#"legacy", or delete this line#>, to: "tag", in: "items[]")"#
            ])
        let detail = try #require(error.migrationProblems.first?.detail)
        #expect(
            detail.contains(#"ArchiveMigration(from: 1, removing: "legacy", in: "items[]")"#), "\(detail)")

        // Deleting the line and removing the member, as the detail says, keeps the declared default.
        let removed = StateArchive<StateV2>(
            file: url, schemaVersion: 2,
            migrations: try error.pastedMigrations(choosing: [#""legacy", or delete this line"#: nil])
                + [ArchiveMigration(from: 1, removing: "legacy", in: "items[]")])
        #expect(try removed.loadFixture(at: url) == StateV2(items: (0..<5).map { ItemV2(id: $0) }))
        // Choosing the rename moves every old value into the new name.
        let renamed = StateArchive<StateV2>(
            file: url, schemaVersion: 2,
            migrations: try error.pastedMigrations(choosing: [#""legacy", or delete this line"#: "legacy"]))
        #expect(
            try renamed.loadFixture(at: url)
                == StateV2(items: (0..<5).map { ItemV2(id: $0, tag: "old \($0)") }))
    }

    @Test func aSchemaVersionRaisedBeforeItsMigrationsNamesEveryChangeToMake() throws {
        try StateArchive<ExpensesV1.State>(file: url).save(
            ExpensesV1.State(expenses: [ExpensesV1.Expense(title: "Tea", amount: 3.5, note: "green")]))
        var reported: PersistenceError?
        _ = StateArchive<ExpensesV2.State>(file: url, schemaVersion: 2).restore(default: ExpensesV2.State()) {
            error, _ in reported = error
        }
        let error = try #require(reported)
        #expect(error.kind == .missingMigration(from: 1))
        #expect(
            error.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 1, adding: "tags", json: <#"[]", or the value Expense declares#>, in: "expenses[]")"##,
                ##"ArchiveMigration(from: 1, renaming: <#"note", or delete this line#>, to: "memo", in: "expenses[]")"##,
                #"ArchiveMigration(from: 1, adding: "defaultCurrency", value: "EUR")"#,
            ])
        let description = "\(error)"
        #expect(
            description.contains("no migration is registered from schema version 1 to 2"), "\(description)")
        #expect(description.contains("Add these migrations"), "\(description)")
        let migrated = StateArchive<ExpensesV2.State>(
            file: url, schemaVersion: 2, migrations: try error.pastedMigrations(choosing: Self.renamedNote))
        #expect(
            try migrated.load()
                == ExpensesV2.State(
                    expenses: [ExpensesV2.Expense(title: "Tea", amount: 3.5, memo: "green")]))
    }

    @Test func aMemberWithNoDefaultThatMayBeNewIsGivenItsAddingLineBesideTheChoice() throws {
        struct ItemV1: Codable {
            var title: String
            var subtitle: String
            var legacy: String
        }
        struct StateV1: StateProtocol { var items: [ItemV1] }
        struct ItemV2: Codable, Equatable {
            var name: String
            var caption: String
            var extra: String
        }
        struct StateV2: StateProtocol, Equatable { var items: [ItemV2] }
        try StateArchive<StateV1>(file: url).save(
            StateV1(items: [ItemV1(title: "t", subtitle: "s", legacy: "L")]))

        let error = try #require(migrationError { _ = try StateArchive<StateV2>(file: url).load() })
        let extra = try #require(error.migrationProblems.first { $0.path == "state.items[0].extra" })
        let adding =
            ##"ArchiveMigration(from: 1, adding: "extra", value: <#"", or the value ItemV2 declares#>, in: "items[]")"##
        #expect(
            extra.detail.contains("if \"extra\" is new, delete it (add \"extra\" with \(adding))"),
            "\(extra.detail)")

        // The choices made, the line for the new member deleted, and the detail's two lines pasted:
        // one release loads every value where it belongs.
        let migrations = [
            ArchiveMigration(from: 1, renaming: "title", to: "name", in: "items[]"),
            ArchiveMigration(from: 1, renaming: "subtitle", to: "caption", in: "items[]"),
            try #require(
                try PastedMigrations.migration(
                    #"ArchiveMigration(from: 1, removing: "legacy", in: "items[]")"#)),
            try #require(
                try PastedMigrations.migration(
                    adding, choices: [#""", or the value ItemV2 declares"#: #""""#])),
        ]
        let archive = StateArchive<StateV2>(file: url, schemaVersion: 2, migrations: migrations)
        #expect(
            try archive.loadFixture(at: url) == StateV2(items: [ItemV2(name: "t", caption: "s", extra: "")]))
    }

    @Test func adviceFoundAfterTheMigrationsSaysHowToKeepItInTheSameRelease() throws {
        try StateArchive<ExpensesV1.State>(file: url).save(
            ExpensesV1.State(expenses: [ExpensesV1.Expense(title: "Tea", amount: 3.5, note: "green")]))
        // Version 2's migrations, with the rename forgotten.
        let partial = [
            ArchiveMigration(from: 1, adding: "tags", json: "[]", in: "expenses[]"),
            ArchiveMigration(from: 1, adding: "defaultCurrency", value: "EUR"),
        ]
        let error = #expect(throws: PersistenceError.self) {
            try StateArchive<ExpensesV2.State>(file: url, schemaVersion: 2, migrations: partial).load()
        }
        let description = error?.description ?? ""
        #expect(description.contains("Raise schemaVersion to 3"), "\(description)")
        #expect(
            description.contains(
                "or, if version 2 has not shipped yet, keep schemaVersion at 2 and add them after the "
                    + "migrations from version 1, with from: 1"), "\(description)")
        // Followed, the same release loads.
        let line = try #require(error?.migrationProblems.first?.migration)
        let moved = try #require(
            try PastedMigrations.migration(
                line.replacingOccurrences(of: "(from: 2,", with: "(from: 1,"), choices: Self.renamedNote))
        let archive = StateArchive<ExpensesV2.State>(
            file: url, schemaVersion: 2, migrations: partial + [moved])
        #expect(
            try archive.load()
                == ExpensesV2.State(expenses: [ExpensesV2.Expense(title: "Tea", amount: 3.5, memo: "green")]))
    }

    @Test func aConversionFoundAfterTheMigrationsWarnsThatItAlsoMeetsTheArchivesOfThatVersion() throws {
        struct LineV1: Codable { var quantity: String }
        struct StateV1: StateProtocol { var lines: [LineV1] }
        struct Line: Codable, Equatable { var quantity: Int }
        struct State: StateProtocol, Equatable { var lines: [Line] }
        try StateArchive<StateV1>(file: url).save(StateV1(lines: [LineV1(quantity: "3")]))
        // Version 2 shipped without the conversion; a fresh install of it wrote `7` as a number.
        let error = #expect(throws: PersistenceError.self) {
            try StateArchive<State>(
                file: url, schemaVersion: 2,
                migrations: [ArchiveMigration(from: 1, removing: "unused", in: "lines[]")]
            ).load()
        }
        let description = error?.description ?? ""
        #expect(description.contains("Raise schemaVersion to 3"), "\(description)")
        #expect(
            description.contains(
                "a migration from version 2 also converts the archives version 2 wrote, so return a value "
                    + "that already reads as the current type as it is"), "\(description)")
        // Written so, the conversion serves both archives.
        let keeping = ArchiveMigration(from: 2, converting: "quantity", in: "lines[]") { old in
            (old as? Int) ?? Int(old as? String ?? "") ?? 1
        }
        let version3 = StateArchive<State>(
            file: url, schemaVersion: 3,
            migrations: [ArchiveMigration(from: 1, removing: "unused", in: "lines[]"), keeping])
        #expect(try version3.load() == State(lines: [Line(quantity: 3)]))
        let fresh = directory.file("fresh.json")
        try StateArchive<State>(file: fresh, schemaVersion: 2).save(State(lines: [Line(quantity: 7)]))
        let freshVersion3 = StateArchive<State>(
            file: fresh, schemaVersion: 3,
            migrations: [ArchiveMigration(from: 1, removing: "unused", in: "lines[]"), keeping])
        #expect(try freshVersion3.load() == State(lines: [Line(quantity: 7)]))
    }

    @Test func aMissingStepThatOnlyRemovesMembersNamesEachRemovalToPaste() throws {
        struct ItemV1: Codable {
            var title: String
            var legacy: String
            var n: Int
        }
        struct StateV1: StateProtocol {
            var items: [ItemV1]
            var byKey: [String: ItemV1]
            var flag = true
        }
        struct ItemV3: Codable, Equatable {
            var name: String
            var n: Int
        }
        struct StateV3: StateProtocol, Equatable {
            var items: [ItemV3]
            var byKey: [String: ItemV3]
        }
        let old = (0..<4).map { ItemV1(title: "t\($0)", legacy: "L\($0)", n: $0) }
        try StateArchive<StateV1>(file: url).save(StateV1(items: old, byKey: ["a": old[0], "b": old[1]]))
        // Version 2 renamed the title, and its migration is written; version 3 removed members, and
        // its migrations are not.
        let given = [
            ArchiveMigration(from: 1, renaming: "title", to: "name", in: "items[]"),
            ArchiveMigration(from: 1, renaming: "title", to: "name", in: "byKey[]"),
        ]
        let error = #expect(throws: PersistenceError.self) {
            try StateArchive<StateV3>(file: url, schemaVersion: 3, migrations: given).load()
        }
        #expect(error?.kind == .missingMigration(from: 2))
        let problems = error?.migrationProblems ?? []
        #expect(
            problems.map(\.migration) == [
                #"ArchiveMigration(from: 2, removing: "legacy", in: "byKey[]")"#,
                #"ArchiveMigration(from: 2, removing: "flag")"#,
                #"ArchiveMigration(from: 2, removing: "legacy", in: "items[]")"#,
            ])
        #expect(problems.allSatisfy { $0.kind == .removedMember }, "\(problems)")
        #expect(error?.description.contains("Add these migrations") == true)

        let pasted = StateArchive<StateV3>(
            file: url, schemaVersion: 3, migrations: given + (try #require(error).pastedMigrations()))
        let items = (0..<4).map { ItemV3(name: "t\($0)", n: $0) }
        #expect(
            try pasted.loadFixture(at: url) == StateV3(items: items, byKey: ["a": items[0], "b": items[1]]))
    }

    @Test func aMissingStepTheArchiveShowsNoChangeForAsksForTheMigrationsBody() throws {
        struct Counter: StateProtocol, Equatable { var cents = 0 }
        try StateArchive<Counter>(file: url).save(Counter(cents: 250))
        let error = #expect(throws: PersistenceError.self) {
            try StateArchive<Counter>(file: url, schemaVersion: 2).load()
        }
        #expect(error?.kind == .missingMigration(from: 1))
        #expect(
            error?.migrationProblems.map(\.migration) == [
                "ArchiveMigration(from: 1) { state in <#change state to the new shape#> }"
            ])
        #expect(error?.migrationProblems.first?.kind == .other)
    }

    @Test func aMemberTheTypesOwnEncodingWritesIsNotTakenForAnOldName() throws {
        struct Person: Codable, Equatable {
            var first: String
            var nickname: String?
            enum CodingKeys: String, CodingKey { case first, nickname }
            enum ExportKeys: String, CodingKey { case display }
            init(first: String, nickname: String?) {
                self.first = first
                self.nickname = nickname
            }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                first = try container.decode(String.self, forKey: .first)
                nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(first, forKey: .first)
                try container.encodeIfPresent(nickname, forKey: .nickname)
                // Also writes a member for other readers of the file, which it never reads.
                var export = encoder.container(keyedBy: ExportKeys.self)
                try export.encode("Dr. \(first)", forKey: .display)
            }
        }
        struct State: StateProtocol, Equatable { var people: [Person] }
        let archive = StateArchive<State>(file: url)
        let state = State(people: [Person(first: "Ada", nickname: nil)])
        try archive.save(state)
        #expect(try archive.load() == state)
        // Beside the member the type writes, an old name is still caught, and alone.
        try write(#"{"people":[{"first":"Ada","display":"Dr. Ada","nick":"A"}]}"#)
        let error = try #require(migrationError { _ = try archive.load() })
        #expect(
            error.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 1, renaming: <#"nick", or delete this line#>, to: "nickname", in: "people[]")"##
            ])
    }

    @Test func aChangedTypeAndAnUnknownEnumCaseAreNamedAndTheSearchGoesPastThem() throws {
        enum Category: String, Codable { case food, travel }
        struct Expense: Codable, Equatable {
            var title: String
            var category: Category
            var amount: Int
            var memo: String
        }
        struct State: StateProtocol, Equatable { var expenses: [Expense] }
        try write(
            #"{"expenses":[{"title":"a","category":"food","amount":"12","memo":"m"},"#
                + #"{"title":"b","category":"gifts","amount":"3","memo":"n"}],"currency":"EUR"}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        #expect(error.migrationProblems.map(\.kind) == [.changedType, .invalidValue], "\(error)")
        #expect(
            error.migrationProblems.map(\.migration) == [
                #"ArchiveMigration(from: 1, converting: "amount", in: "expenses[]") { old in <#old as the current type reads it#> }"#,
                #"ArchiveMigration(from: 1, converting: "category", in: "expenses[]") { old in <#old as the current type reads it#> }"#,
            ])
        #expect(
            error.migrationProblems.map(\.path) == ["state.expenses[0].amount", "state.expenses[1].category"])
        let category = error.migrationProblems.last?.detail ?? ""
        #expect(category.contains("gifts"), "\(category)")
    }

    @Test func anEnumCaseWithAssociatedValuesTheTypeNoLongerHasIsNamedAsAnUnknownCase() throws {
        enum Shape: Codable, Equatable {
            case circle(radius: Double)
            case square(side: Double)
        }
        struct State: StateProtocol, Equatable { var shapes: [Shape] }
        try write(#"{"shapes":[{"circle":{"radius":1}},{"blob":{"points":3}}]}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        let problem = try #require(error.migrationProblems.first)
        #expect(problem.kind == .invalidValue, "\(error)")
        #expect(problem.path == "state.shapes[1]")
        #expect(problem.detail.contains(#"the enum case "blob""#), "\(problem.detail)")
        #expect(problem.detail.contains("Shape"), "\(problem.detail)")
        #expect(problem.migration.contains(#"converting: "shapes""#), "\(problem.migration)")
    }

    @Test func changesAtEveryDepthAreFoundInOneLoad() throws {
        struct Line: Codable, Equatable {
            var sku: String
            var quantity: Int  // "count" before
        }
        struct Settings: Codable, Equatable {
            var theme: String
            var fontSize: Int  // added
        }
        struct Order: Codable, Equatable {
            var lines: [Line]
            var note: String?  // "comment" before
        }
        struct State: StateProtocol, Equatable {
            var orders: [String: Order]
            var settings: Settings
            var owner: String  // "user" before
            var version: Int  // a string before
        }
        try write(
            #"{"orders":{"x":{"lines":[{"sku":"A","count":2}],"comment":"fragile"}},"#
                + #""settings":{"theme":"dark"},"user":"ada","version":"7"}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        #expect(
            Set(error.migrationProblems.map(\.migration)) == [
                ##"ArchiveMigration(from: 1, renaming: <#"count", or delete this line#>, to: "quantity", in: "orders[].lines[]")"##,
                ##"ArchiveMigration(from: 1, renaming: <#"comment", or delete this line#>, to: "note", in: "orders[]")"##,
                ##"ArchiveMigration(from: 1, adding: "fontSize", value: <#0, or the value Settings declares#>, in: "settings")"##,
                ##"ArchiveMigration(from: 1, renaming: <#"user", or delete this line#>, to: "owner")"##,
                #"ArchiveMigration(from: 1, converting: "version") { old in <#old as the current type reads it#> }"#,
            ], "\(error)")
        #expect(error.migrationProblems.count == 5)
    }

    @Test func pastingTheAdviceLoadsEveryOldValueWhereItBelongs() throws {
        try StateArchive<ExpensesV1.State>(file: url).save(Self.v1)
        let error = try #require(restoreError(ExpensesV2.State()))
        let archive = StateArchive<ExpensesV2.State>(
            file: directory.file("live.json"), schemaVersion: 2,
            migrations: try error.pastedMigrations(choosing: Self.renamedNote))
        // Every value the old archive holds comes back, and each is where it belongs.
        let loaded = try archive.loadFixture(at: url)
        #expect(loaded.expenses.map(\.memo) == Self.v1.expenses.map(\.note))
        #expect(loaded.expenses.map(\.title) == Self.v1.expenses.map(\.title))
        #expect(loaded.expenses.map(\.amount) == Self.v1.expenses.map(\.amount))
        #expect(loaded.expenses.map(\.tags) == [[], []])
        #expect(loaded.defaultCurrency == "EUR")
        // A launch with the pasted migrations loads the real archive too.
        let launched = StateArchive<ExpensesV2.State>(
            file: url, schemaVersion: 2, migrations: try error.pastedMigrations(choosing: Self.renamedNote))
        #expect(try launched.load() == loaded)
    }

    @Test func aSearchThatCannotGoOnSaysMoreMayFollowAndThePastedAdviceNamesTheRest() throws {
        enum Mood: String, Codable { case calm, busy }
        struct State: StateProtocol, Equatable {
            var title: String
            var mood: Mood  // added: no value of it can be made up
            var count: Int  // added
        }
        try write(#"{"title":"a"}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        #expect(error.migrationProblems.count == 1)
        let problem = try #require(error.migrationProblems.first)
        #expect(problem.detail.contains("more may follow"), "\(problem.detail)")
        // With the placeholder filled in, the next load names what is still missing.
        let placeholder = "a \(String(reflecting: Mood.self)) as JSON"
        let pasted = try PastedMigrations.migrations(
            try #require(error.suggestedMigrations).replacingOccurrences(
                of: "json: <#\(placeholder)#>", with: ##"json: #""calm""#"##))
        let next = try #require(
            migrationError {
                _ = try StateArchive<State>(file: url, schemaVersion: 2, migrations: pasted).load()
            })
        #expect(
            next.migrationProblems.map(\.migration) == [
                ##"ArchiveMigration(from: 2, adding: "count", value: <#0, or the value State declares#>)"##
            ])
    }

    @Test func anAddedUUIDDoesNotStopTheSearch() throws {
        struct Item: Codable, Equatable {
            var name: String
            var ownerID: UUID  // added
            var count: Int  // added
        }
        struct State: StateProtocol, Equatable { var items: [Item] }
        try write(#"{"items":[{"name":"a"}]}"#)
        let error = try #require(migrationError { _ = try StateArchive<State>(file: url).load() })
        #expect(error.migrationProblems.map(\.path) == ["state.items[0].ownerID", "state.items[0].count"])
        #expect(!error.description.contains("more may follow"))
    }

    @Test func theDescriptionListsEveryChangeAndOneBlockToPaste() throws {
        try StateArchive<ExpensesV1.State>(file: url).save(Self.v1)
        let error = try #require(restoreError(ExpensesV2.State()))
        let text = error.description
        let block = try #require(error.suggestedMigrations)
        #expect(
            block == """
                [
                    ArchiveMigration(from: 1, adding: "tags", json: <#"[]", or the value Expense declares#>, in: "expenses[]"),
                    ArchiveMigration(from: 1, renaming: <#"note", or delete this line#>, to: "memo", in: "expenses[]"),
                    ArchiveMigration(from: 1, adding: "defaultCurrency", value: "EUR"),
                ]
                """)
        #expect(text.hasPrefix("Cannot load \(url.path): it needs a migration for each of these 3 changes:"))
        #expect(text.contains("\n1. At state.expenses[0].tags: "))
        #expect(text.contains("\n2. At state.expenses[0].memo: "))
        #expect(text.contains("\n3. At state.defaultCurrency: "))
        #expect(text.hasSuffix("Raise schemaVersion to 2 and add these migrations:\nmigrations: \(block)"))
    }

    @Test func severalMigrationsFromOneVersionRunInTheOrderGiven() throws {
        struct State: StateProtocol, Equatable { var label: String }
        try write(#"{"name":"a"}"#)
        let archive = StateArchive<State>(
            file: url, schemaVersion: 2,
            migrations: [
                ArchiveMigration(from: 1, renaming: "name", to: "title"),
                ArchiveMigration(from: 1, converting: "title") { "\($0)!" },
                ArchiveMigration(from: 1, renaming: "title", to: "label"),
            ])
        #expect(try archive.load() == State(label: "a!"))
    }

    @Test func addingJSONAddsTheValueToEveryObjectThatLacksIt() throws {
        struct Limits: Codable, Equatable {
            var daily: Int
            var currency: String
        }
        struct Account: Codable, Equatable {
            var name: String
            var limits: Limits
        }
        struct State: StateProtocol, Equatable { var accounts: [Account] }
        try write(#"{"accounts":[{"name":"a"},{"name":"b"}]}"#)
        let archive = StateArchive<State>(
            file: url, schemaVersion: 2,
            migrations: [
                ArchiveMigration(
                    from: 1, adding: "limits", json: #"{"daily":50,"currency":"EUR"}"#, in: "accounts[]")
            ])
        let limits = Limits(daily: 50, currency: "EUR")
        #expect(
            try archive.load()
                == State(accounts: [Account(name: "a", limits: limits), Account(name: "b", limits: limits)]))
    }
}
