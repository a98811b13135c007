import Foundation
import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct UnreachablePathTests {
    /// `{"counter": 1, "log": [], "todos": [{"id": 0, "title": "a", "done": false}]}`
    static let tree: JSONValue = .object([
        "counter": .number("1"), "log": .array([]),
        "todos": .array([.object(["id": .number("0"), "title": .string("a"), "done": .bool(false)])]),
    ])

    func unreachable(_ paths: [String], storedProperties: Set<String> = []) -> [String] {
        KeyPathObserver<TestState>.unreachablePaths(paths, in: Self.tree) { storedProperties }
    }

    @Test func aMisspelledFirstMemberIsReported() {
        #expect(unreachable(["countr", "todos"]) == ["countr"])
    }

    @Test func aMemberOfANumberOrAStringIsReported() {
        #expect(unreachable(["counter.x", "todos.0.title.length"]) == ["counter.x", "todos.0.title.length"])
    }

    @Test func anArrayElementNamedByAWordIsReported() {
        #expect(unreachable(["todos.first.done"]) == ["todos.first.done"])
    }

    @Test func pathsThatMayExistLaterAreAccepted() {
        // An element past the end, a member deeper down, every change, an optional that is nil now.
        #expect(
            unreachable(["todos.5.done", "todos.0.tags", "", "note"], storedProperties: ["note"]).isEmpty)
    }

    @Test func aStoreStillDeliversTheChangesOfAWatchedPath() {
        let store = makeStore()
        let changes = Recorder<String>()
        let token = store.observeStateChanges(at: ["countr", "counter"]) { batch in
            for change in batch { changes.append(change.path) }
        }
        store.dispatch(TestAction.increment)
        #expect(changes.wait(forCount: 1))
        #expect(changes.values == ["counter"])
        token.cancel()
    }
}
