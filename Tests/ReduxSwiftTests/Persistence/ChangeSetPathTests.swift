import Foundation
import Testing

@testable import ReduxSwift

/// Change-set paths are unambiguous, and collections whose order means nothing are compared as
/// unordered.
@Suite(.offThePool) struct ChangeSetPathTests {
    struct Catalog: StateProtocol, Equatable {
        var items: [String: Int] = ["x": 1]
        var tags: Set<String> = ["a", "b", "c", "d", "e", "f"]
        var counts: [UUID: Int] = [:]
        var revision = 0
    }

    static func counts(_ count: Int) -> [UUID: Int] {
        Dictionary(uniqueKeysWithValues: (0..<count).map { (UUID(), $0) })
    }

    @Test func aKeyContainingADotIsEscapedRatherThanReadAsNesting() throws {
        var after = Catalog()
        after.items["x.y"] = 2
        let changes = try StateChange.changes(from: Catalog(), to: after)
        #expect(changes == [StateChange(path: #"items.x\.y"#, oldValue: nil, newValue: .number("2"))])
        #expect(changes.first?.pathComponents == ["items", "x.y"])
    }

    @Test func pathsRoundTripThroughTheirComponents() throws {
        for components in [["a"], ["items", "x.y"], [#"back\slash"#, "3", "."], [#"\."#, ""], ["", "x"]] {
            let path = StateChange.path(components)
            #expect(StateChange(path: path, oldValue: nil, newValue: nil).pathComponents == components)
        }
        #expect(StateChange.path(["items", "x.y"]) == #"items.x\.y"#)
        #expect(StateChange.path([#"a\b"#]) == #"a\\b"#)
        let value = try JSONValue(parsing: Data(#"{"items":{"x.y":2,"x":{"y":3},"a\\b":4}}"#.utf8))
        #expect(value[path: #"items.x\.y"#] == .number("2"))
        #expect(value[path: "items.x.y"] == .number("3"))
        #expect(value[path: #"items.a\\b"#] == .number("4"))
        #expect(value[path: ""] == value)
    }

    @Test func insertingIntoASetIsOneChangeOfTheWholeSet() throws {
        var after = Catalog()
        after.tags.insert("g")
        let changes = try StateChange.changes(from: Catalog(), to: after)
        #expect(changes.map(\.path) == ["tags"])
        guard case .array(let old)? = changes.first?.oldValue, case .array(let new)? = changes.first?.newValue
        else {
            Issue.record("expected the whole set before and after, got \(changes)")
            return
        }
        #expect(Set(old.compactMap(\.stringValue)) == Catalog().tags)
        #expect(Set(new.compactMap(\.stringValue)) == after.tags)
    }

    @Test func aSetInAnotherOrderIsNoChange() throws {
        let elements = (0..<40).map { "tag \($0)" }
        let before = Catalog(tags: Set(elements))
        var reordered: Catalog?
        // A set with room for more elements usually lists the same ones in another order.
        for capacity in [100, 1_000, 10_000] {
            var tags = Set<String>(minimumCapacity: capacity)
            for element in elements.reversed() { tags.insert(element) }
            let candidate = Catalog(tags: tags)
            if Array(candidate.tags) != Array(before.tags) {
                reordered = candidate
                break
            }
        }
        let after = try #require(reordered, "no capacity listed the set in another order")
        #expect(try StateChange.changes(from: before, to: after).isEmpty)
    }

    @Test func aDictionaryWithNonStringKeysIsComparedByKey() throws {
        let before = Catalog(counts: Self.counts(8))
        var added = before
        added.counts[UUID()] = 8
        #expect(try StateChange.changes(from: before, to: added).map(\.path) == ["counts"])
        var changed = before
        let key = changed.counts.keys.first!
        changed.counts[key]! += 100
        // The same keys: the value under the one that changed.
        #expect(try StateChange.changes(from: before, to: changed).map(\.path) == ["counts.\(key)"])
        var rebuilt = Catalog(counts: [:])
        rebuilt.counts.reserveCapacity(1_000)
        for (key, value) in before.counts { rebuilt.counts[key] = value }
        #expect(try StateChange.changes(from: before, to: rebuilt).isEmpty)
    }
}
