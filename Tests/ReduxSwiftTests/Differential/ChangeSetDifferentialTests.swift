import Foundation
import Testing

@testable import ReduxSwift

/// `StateChange.changes(from:to:)`, which an archive's loss check, its migration advice and
/// `TestStore`'s failure messages use, reports exactly the paths whose JSON values differ, as
/// ``ReferenceChanges`` finds them without the library.
@Suite(.serialized, .offThePool) struct ChangeSetDifferentialTests {
    /// Draws `cases` pairs per seed and compares `StateChange.changes` with the reference.
    static func compare(
        _ test: String, cases: Int, sourceLocation: SourceLocation = #_sourceLocation,
        draw: (inout Draw) -> Shapes, change: (inout Draw, Shapes) -> Shapes
    ) throws {
        for seed in DifferentialSeeds.all {
            var random = Draw(DifferentialSeeds.generator(seed: seed, test: test))
            var report = DifferentialReport(test: test, seed: seed)
            for index in 0..<cases {
                let old = draw(&random)
                let new = change(&random, old)
                do {
                    let found = ReferenceChanges.form(try StateChange.changes(from: old, to: new))
                    let want = try ReferenceChanges.changes(
                        from: old, to: new, unordered: ReferenceChanges.fixtureUnordered)
                    if !ReferenceChanges.same(found, want) {
                        report.fail(
                            "StateChange.changes reports exactly the differing paths", case: index,
                            "library \(found), reference \(want)")
                    }
                } catch {
                    report.fail("StateChange.changes does not throw", case: index, "\(error)")
                }
            }
            report.flush(cases: cases, sourceLocation: sourceLocation)
        }
    }

    @Test func changeSetsOfRandomPairsReportExactlyThePathsWhoseJSONDiffers() throws {
        try Self.compare("change sets", cases: 300, draw: { $0.shapes() }, change: { $0.changed($1) })
    }

    struct Jukebox: StateProtocol, Equatable {
        var player: Player = .playing(1)
        var volume = 0
    }

    @Test func anEnumPayloadChangeIsReportedUnderItsMember() throws {
        let changes = try StateChange.changes(from: Jukebox(), to: Jukebox(player: .playing(2)))
        #expect(changes.map(\.path) == ["player.playing._0"])
    }

    @Test func equalSetsAndDictionariesInOtherStorageAreNoChange() throws {
        let test = "equal unordered collections"
        let cases = 60
        for seed in DifferentialSeeds.all {
            var random = Draw(DifferentialSeeds.generator(seed: seed, test: test))
            var report = DifferentialReport(test: test, seed: seed)
            for index in 0..<cases {
                // `LateWriter` makes the store's encoder take its fallback path for the whole state;
                // a car, its `superEncoder()` path.
                var old = FallbackShapes(
                    shapes: random.shapes(), late: random.chance(0.5) ? LateWriter() : nil)
                if random.chance(0.3) { old.shapes.cars = [random.car()] } else { old.shapes.cars = [] }
                old.shapes.pieces = []
                var new = old
                new.shapes.catalog = random.restored(old.shapes.catalog)
                do {
                    let changes = try StateChange.changes(from: old, to: new)
                    if !changes.isEmpty {
                        report.fail(
                            "equal sets in other storage are no change", case: index,
                            "\(changes.prefix(5)) with late writer: \(old.late != nil), cars: \(old.shapes.cars.count)"
                        )
                    }
                } catch {
                    report.fail("StateChange.changes does not throw", case: index, "\(error)")
                }
            }
            report.flush(cases: cases)
        }
    }

    @Test func precomposedAndDecomposedTextsAreAChange() throws {
        struct Text: Codable { var title: String }
        let changes = try StateChange.changes(from: Text(title: "caf\u{E9}"), to: Text(title: "cafe\u{301}"))
        #expect(changes.map(\.path) == ["title"], "\"é\" precomposed → decomposed changes the bytes")
    }

    /// Writes to a nested container after writing to its parent again, which Foundation allows.
    struct LateWriter: Codable, Equatable {
        enum CodingKeys: String, CodingKey {
            case inner
            case outer
        }

        init() {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            _ = try container.nestedContainer(keyedBy: CodingKeys.self, forKey: .inner)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var inner = container.nestedContainer(keyedBy: CodingKeys.self, forKey: .inner)
            try container.encode(1, forKey: .outer)
            try inner.encode(2, forKey: .inner)
        }
    }

    struct FallbackShapes: Codable, Equatable {
        var shapes: Shapes
        var late: LateWriter?
    }

    @Test func aStateNested511LevelsDeepHasChangeSets() throws {
        let shallow = Brackets(depth: 1)
        let deep = Brackets(depth: 511)
        // `[]` → `[[…]]`: element 0 is added.
        let expected = [ReferenceChanges.Change(path: "0", hadValue: false, hasValue: true)]
        do {
            let changes = try StateChange.changes(from: shallow, to: deep)
            #expect(ReferenceChanges.same(ReferenceChanges.form(changes), expected))
        } catch {
            Issue.record(
                "StateChange.changes throws for a state 511 levels deep, which round-trips: \(error)")
        }
    }
}
