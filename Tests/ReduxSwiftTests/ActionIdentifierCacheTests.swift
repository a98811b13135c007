import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct ActionIdentifierCacheTests {
    enum Signal: ActionProtocol {
        case red
        case amber
        case green(seconds: Int)
    }

    /// Reads its case name from `description`, as the default identifier does for a case without
    /// associated values, and counts the reads. Only `theDefaultIdentifierIsBuiltOncePerCase` reads it.
    enum Light: ActionProtocol, CustomStringConvertible {
        case on
        case off

        static let descriptions = LockedValue(0)

        var description: String {
            Self.descriptions.withLock { $0 += 1 }
            return self == .on ? "lit" : "dark"
        }
    }

    /// Like `Light`, for `aFullCacheKeepsItsEntriesAndBuildsTheRestOnEveryRead` alone.
    enum Lamp: ActionProtocol, CustomStringConvertible {
        case on
        case off

        static let descriptions = LockedValue(0)

        var description: String {
            Self.descriptions.withLock { $0 += 1 }
            return self == .on ? "lit" : "dark"
        }
    }

    /// A value whose custom mirror names a different case for each payload.
    enum Mirrored: ActionProtocol, CustomReflectable {
        case named(String)

        var customMirror: Mirror {
            guard case .named(let name) = self else { return Mirror(self, children: []) }
            return Mirror(self, children: [(label: name, value: 0)], displayStyle: .enum)
        }
    }

    final class Token {}

    @Test func theDefaultIdentifierIsBuiltOncePerCase() {
        for _ in 0..<10 {
            #expect(Light.on.identifier == "Light.lit")
            #expect(Light.off.identifier == "Light.dark")
        }
        #expect(Light.descriptions.withLock { $0 } == 2)
    }

    @Test func aCustomMirrorIsReadAgainForEveryValue() {
        #expect(Mirrored.named("first").identifier == "Mirrored.first")
        #expect(Mirrored.named("second").identifier == "Mirrored.second")
    }

    @Test func casesAreToldApartWhateverTheirPayload() throws {
        let red = try #require(identifierKey(of: Signal.red))
        let amber = try #require(identifierKey(of: Signal.amber))
        let green = try #require(identifierKey(of: Signal.green(seconds: 3)))
        #expect([red.caseTag, amber.caseTag, green.caseTag].allSatisfy { $0 != nil })
        #expect(Set([red.caseTag, amber.caseTag, green.caseTag]).count == 3)
        #expect(identifierKey(of: Signal.green(seconds: 4)) == green)
        #expect(red.type == ObjectIdentifier(Signal.self))
    }

    @Test func typesThatAreNotEnumsAreKeyedByTypeAlone() {
        #expect(identifierKey(of: 1) == IdentifierTable.Key(type: ObjectIdentifier(Int.self), caseTag: nil))
        #expect(
            identifierKey(of: Token())
                == IdentifierTable.Key(type: ObjectIdentifier(Token.self), caseTag: nil))
        #expect(identifierKey(of: Action("todos.add"))?.caseTag == nil)
        #expect(identifierKey(of: Optional(Signal.red))?.caseTag == nil)
    }

    @Test func aFullCacheKeepsItsEntriesAndBuildsTheRestOnEveryRead() {
        let cache = ActionIdentifierCache(maximumCount: 1)
        func read(_ action: Lamp) -> String {
            cache.identifier(of: action, key: identifierKey(of: action)!).identifier
        }
        for _ in 0..<3 {
            #expect(read(.on) == "Lamp.lit")
            #expect(read(.off) == "Lamp.dark")
        }
        #expect(cache.count == 1)
        #expect(Lamp.descriptions.withLock { $0 } == 1 + 3)
    }

    @Test func theTableFindsEveryEntryAsItGrows() {
        let tokens = (0..<300).map { _ in Token() }
        var table = IdentifierTable(maximumCount: 1_000)
        func key(_ index: Int, _ tag: UInt32?) -> IdentifierTable.Key {
            IdentifierTable.Key(type: ObjectIdentifier(tokens[index]), caseTag: tag)
        }
        for index in tokens.indices {
            table.insert("\(index)", for: key(index, nil))
            table.insert("\(index).0", for: key(index, 0))
        }
        table.insert("replaced", for: key(0, nil))
        #expect(table.count == 600)
        #expect(
            tokens.indices.allSatisfy { table[key($0, nil)] == "\($0)" && table[key($0, 0)] == "\($0).0" })
        #expect(table[key(0, 1)] == nil)
        #expect(IdentifierTable(maximumCount: 1)[key(0, nil)] == nil)
    }
}
