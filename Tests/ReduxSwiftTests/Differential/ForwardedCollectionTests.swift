import Foundation
import Testing

@testable import ReduxSwift

/// Sets and dictionaries that a wrapper's `encode(to:)` writes by calling their own: nothing in the
/// encoding says their order means nothing, so fixtures and change reports ask the types.
@Suite struct ForwardedCollectionTests {
    /// A set of tags that encodes as the set itself, as many apps wrap one.
    struct Tags: Codable, Equatable {
        var values: Set<String>

        init(_ values: Set<String>) {
            self.values = values
        }

        init(from decoder: any Decoder) throws {
            values = try Set(from: decoder)
        }

        func encode(to encoder: any Encoder) throws {
            try values.encode(to: encoder)
        }
    }

    /// A dictionary whose keys are not strings (written as `[key, value, …]`), wrapped the same way.
    struct Scores: Codable, Equatable {
        var values: [Double: Int]

        init(_ values: [Double: Int]) {
            self.values = values
        }

        init(from decoder: any Decoder) throws {
            values = try [Double: Int](from: decoder)
        }

        func encode(to encoder: any Encoder) throws {
            try values.encode(to: encoder)
        }
    }

    struct Shelf: StateProtocol, Equatable {
        var tags = Tags(Set((0..<24).map { "tag \($0)" }))
        var scores = Scores(Dictionary(uniqueKeysWithValues: (0..<12).map { (Double($0) + 0.5, $0) }))
        var order = [3, 1, 2]
    }

    /// `json` with the array at `path` in the reverse order.
    static func reversing(_ path: String, in json: JSONValue) -> JSONValue {
        guard case .array(let elements)? = json[path: path] else { return json }
        return json.replacing(at: StatePath.components(of: path)[...], with: .array(elements.reversed()))
    }

    /// `json` with the pairs of the `[key, value, …]` array at `path` in the reverse order.
    static func reversingPairs(_ path: String, in json: JSONValue) -> JSONValue {
        guard case .array(let elements)? = json[path: path] else { return json }
        let pairs = stride(from: elements.count - 2, through: 0, by: -2).flatMap { elements[$0...$0 + 1] }
        return json.replacing(at: StatePath.components(of: path)[...], with: .array(Array(pairs)))
    }

    @Test func aFixtureWhoseForwardedSetAndDictionaryAreInAnotherOrderLoads() throws {
        let directory = TemporaryDirectory()
        let archive = StateArchive<Shelf>(file: directory.file("live.json"))
        let encoded = try JSONValue(parsing: try SnapshotCoder.makeEncoder().encode(Shelf()))
        let reordered = Self.reversingPairs("scores", in: Self.reversing("tags", in: encoded))
        #expect(reordered[path: "tags"] != encoded[path: "tags"])
        #expect(reordered[path: "scores"] != encoded[path: "scores"])
        let fixture = directory.file("fixture.json")
        try ArchiveFormat.envelope(schemaVersion: 1, state: reordered.data).write(to: fixture)

        #expect(try archive.loadFixture(at: fixture) == Shelf())
    }

    @Test func aFixtureWhoseOrderedArrayHoldsAnotherOrderLoadsAsSaved() throws {
        let directory = TemporaryDirectory()
        let archive = StateArchive<Shelf>(file: directory.file("live.json"))
        let encoded = try JSONValue(parsing: try SnapshotCoder.makeEncoder().encode(Shelf()))
        // The fixture is the state a user saved; here its array is simply another value.
        var saved = Shelf()
        saved.order.reverse()
        let fixture = directory.file("fixture.json")
        let json = encoded.replacing(at: ["order"], with: .array(saved.order.map { .number("\($0)") }))
        try ArchiveFormat.envelope(schemaVersion: 1, state: json.data).write(to: fixture)

        #expect(try archive.loadFixture(at: fixture) == saved)
    }

    @Test func aChangeReportListsOnlyRealChangesOfForwardedCollections() throws {
        var before = Shelf()
        // The same tags, added in another order into a larger table: the set iterates them in
        // another order, which is no change.
        var tags = Set<String>(minimumCapacity: 512)
        for tag in before.tags.values.sorted().reversed() { tags.insert(tag) }
        var after = before
        after.tags = Tags(tags)
        after.scores.values[0.5] = 100
        let beforeJSON = try JSONValue(parsing: try SnapshotCoder.makeEncoder().encode(before))
        let afterJSON = try JSONValue(parsing: try SnapshotCoder.makeEncoder().encode(after))
        try #require(beforeJSON[path: "tags"] != afterJSON[path: "tags"], "the two sets iterate alike")

        // The changed score is a change (where it stands in the array depends on the table); the
        // reordered tags are none.
        let changes = try StateChange.changes(from: before, to: after)
        #expect(changes.count == 1)
        #expect(changes.allSatisfy { $0.path.hasPrefix("scores.") && $0.newValue == .number("100") })

        // An ordered array that holds the same elements in another order is a change, even when
        // reversing it gives it back.
        before.order = [2, 1, 1]
        after = before
        after.order = [1, 2, 1]
        #expect(try StateChange.changes(from: before, to: after).map(\.path) == ["order.0", "order.1"])
    }
}
