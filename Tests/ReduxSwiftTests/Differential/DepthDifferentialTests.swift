import Foundation
import Testing

@testable import ReduxSwift

/// Arrays nested `depth` levels: `[]` is 1, `[[]]` is 2. Each level is one unkeyed container.
struct Brackets: StateProtocol, Equatable {
    var depth: Int

    init(depth: Int) { self.depth = depth }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        depth = container.isAtEnd ? 1 : try container.decode(Brackets.self).depth + 1
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        if depth > 1 { try container.encode(Brackets(depth: depth - 1)) }
    }
}

/// Objects nested `depth` levels, `{"n":{"n":{}}}`, the innermost reached through one wrapper.
struct Objects: StateProtocol, Equatable {
    var depth: Int

    init(depth: Int) { self.depth = depth }

    enum CodingKeys: String, CodingKey { case next = "n" }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let next = try container.decodeIfPresent(Wrapper<Objects>.self, forKey: .next)
        depth = (next?.inner.depth ?? 0) + 1
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if depth > 1 { try container.encode(Wrapper(Objects(depth: depth - 1)), forKey: .next) }
    }
}

/// A root that encodes nothing at all.
struct Silent: StateProtocol, Equatable {
    init() {}
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
}

/// Writes two values to one single-value container, which `JSONEncoder` stops the program for.
struct WrittenTwice: StateProtocol, Equatable {
    var first = 1
    var second = 2

    init() {}

    init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode(Int.self)
        first = value
        second = value
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(first)
        try container.encode(second)
    }
}

/// Nesting at and around 511 levels, the deepest `JSONEncoder` writes (`JSONDecoder` reads one
/// more): the store hands back Foundation's round trip up to it, and a typed `SnapshotError` past
/// it.
@Suite(.serialized, .offThePool) struct DepthDifferentialTests {
    /// Whether `JSONDecoder` reads `depth` nested arrays: one level more than `JSONEncoder` writes,
    /// which is what an archive's envelope needs.
    static func decoderReads(depth: Int) -> Bool {
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        return (try? JSONDecoder().decode(Brackets.self, from: Data(text.utf8))) == Brackets(depth: depth)
    }

    /// Puts `deep` into a store that starts at `shallow`: it must come back equal when it nests no
    /// deeper than `JSONEncoder` writes, and be refused with a `SnapshotError` otherwise.
    static func compare<State: StateProtocol & Equatable>(
        _ shallow: State, _ deep: State, roundTrips: Bool, label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let set: Reducer<State> = { state, action in
            if let value = action.payload as? Carried<State> { state = value.value }
        }
        let store = Store(reducers: [set], state: shallow, notificationCenter: StoreNotificationCenter())
        _ = try? store.snapshot()
        store.dispatch(Action("set", payload: Carried(deep)))
        if roundTrips {
            do {
                let state = try store.snapshot()
                #expect(state == deep, "\(label): snapshot() differs", sourceLocation: sourceLocation)
            } catch {
                Issue.record(
                    "\(label): Foundation round-trips it, the store throws \(error)",
                    sourceLocation: sourceLocation)
            }
            #expect(store.currentState() == deep, "\(label): currentState()", sourceLocation: sourceLocation)
        } else {
            #expect(
                throws: SnapshotError.self, "\(label): too deep to read back", sourceLocation: sourceLocation
            ) {
                _ = try store.snapshot()
            }
            #expect(
                store.currentState() == shallow, "\(label): currentState() falls back",
                sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [511, 512, 513])
    func arraysNestedAtAndAroundTheLimit(depth: Int) {
        #expect(Self.decoderReads(depth: depth) == (depth <= 512))
        #expect(ReferenceCoders.roundTrip(Brackets(depth: depth)).isSuccess == (depth <= JSONNesting.limit))
        Self.compare(
            Brackets(depth: 1), Brackets(depth: depth), roundTrips: depth <= 511, label: "\(depth) arrays")
    }

    @Test(arguments: [511, 512, 513])
    func objectsNestedThroughWrappersAtAndAroundTheLimit(depth: Int) {
        Self.compare(
            Objects(depth: 1), Objects(depth: depth), roundTrips: depth <= 511, label: "\(depth) objects")
    }

    @Test(arguments: [(301, 3), (512, 1), (512, 3), (513, 2)])
    func listsWhoseLevelsGoThroughWrappers(levels: Int, wrappers: Int) {
        let list = WrappedLevel.list(levels: levels) { _ in wrappers }
        #expect(list.depth == levels)
        if levels < 512 {
            #expect(ReferenceCoders.roundTrip(list).isSuccess, "Foundation round-trips \(levels) levels")
        }
        Self.compare(
            WrappedLevel(wrappers: 1, next: []), list, roundTrips: levels <= 511,
            label: "\(levels) levels × \(wrappers) wrappers")
    }

    @Test func aRootThatEncodesNothingIsAnError() {
        #expect(throws: (any Error).self, "Foundation refuses a root that encodes nothing") {
            _ = try ReferenceCoders.encoder().encode(Silent())
        }
        let store = Store<Silent>(
            reducers: [], state: Silent(), notificationCenter: StoreNotificationCenter())
        #expect(throws: SnapshotError.self, "the store must refuse it too, not write {}") {
            _ = try store.snapshot()
        }
        // Below the root, Foundation writes such a value as `{}`: compare with it.
        RoundTripDifferentialTests.compare("a nested value that encodes nothing", cases: 2) { _ in [Silent()]
        }
    }

    /// Foundation stops the program here (a precondition), so it is not called.
    @Test func aSingleValueContainerWrittenTwiceIsATypedError() {
        let store = Store<WrittenTwice>(
            reducers: [], state: WrittenTwice(), notificationCenter: StoreNotificationCenter())
        #expect(throws: SnapshotError.self, "two writes to one single-value container must not become 12") {
            _ = try store.snapshot()
        }
        #expect(throws: SnapshotError.self) {
            _ = try StateChange.changes(from: WrittenTwice(), to: WrittenTwice())
        }
    }
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
extension WrappedLevel: StateProtocol {}
