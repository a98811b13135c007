import Foundation
import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct StateChangeTests {
    /// Dispatches `action`, waits until `changes` has one more delivery or the store has announced
    /// the action, and returns the deliveries so far.
    func changes(
        after action: TestAction, on store: Store<TestState>, recorder: Recorder<[StateChange]>
    ) -> [[StateChange]] {
        let (appends, token) = recordAppends(announcedBy: store)
        store.dispatch(action)
        store.dispatch(TestAction.append("marker"))
        appends.wait(forCount: 1)
        withExtendedLifetime(token) {}
        return recorder.values
    }

    @Test func aChangedLeafIsReportedWithItsOldAndNewValue() {
        let store = makeStore(state: TestState(todos: [Todo(id: 0, title: "a"), Todo(id: 1, title: "b")]))
        let recorder = Recorder<[StateChange]>()
        let token = store.observeStateChanges(at: ["todos"]) { recorder.append($0) }
        let delivered = changes(after: .toggle(1), on: store, recorder: recorder)
        #expect(
            delivered == [[StateChange(path: "todos.1.done", oldValue: .bool(false), newValue: .bool(true))]])
        #expect(delivered.first?.first?.description == "todos.1.done: false → true")
        withExtendedLifetime(token) {}
    }

    @Test func changesElsewhereAreNotDelivered() {
        let store = makeStore()
        let recorder = Recorder<[StateChange]>()
        let token = store.observeStateChanges(at: ["counter"]) { recorder.append($0) }
        #expect(changes(after: .addTodo("x"), on: store, recorder: recorder).isEmpty)
        store.dispatch(TestAction.add(3))
        #expect(recorder.wait(forCount: 1))
        #expect(
            recorder.values == [
                [StateChange(path: "counter", oldValue: .number("0"), newValue: .number("3"))]
            ])
        withExtendedLifetime(token) {}
    }

    @Test func aChangeAboveAWatchedPathIsNarrowedToIt() {
        let store = makeStore(state: TestState(todos: [Todo(id: 0, title: "a")]))
        let recorder = Recorder<[StateChange]>()
        let token = store.observeStateChanges(at: ["todos.1.title"]) { recorder.append($0) }
        let delivered = changes(after: .addTodo("b"), on: store, recorder: recorder)
        #expect(delivered == [[StateChange(path: "todos.1.title", oldValue: nil, newValue: .string("b"))]])
        withExtendedLifetime(token) {}
    }

    @Test func noPathsMeansEveryChange() {
        let store = makeStore()
        let recorder = Recorder<[StateChange]>()
        let token = store.observeStateChanges(at: []) { recorder.append($0) }
        store.dispatch(TestAction.add(1))
        #expect(recorder.wait(forCount: 1))
        store.dispatch(TestAction.append("x"))
        #expect(recorder.wait { $0.joined().contains { $0.path == "log.0" } })
        withExtendedLifetime(token) {}
    }

    @Test func underscoredMembersAreIgnored() {
        struct Cached: StateProtocol {
            var visible = 0
            var _cache = 0
        }
        struct Bump: ActionProtocol {}
        let store = Store<Cached>(
            reducers: [
                { state, action in
                    state._cache += 1
                    if action is Bump { state.visible += 1 }
                }
            ],
            state: Cached())
        let recorder = Recorder<[StateChange]>()
        let token = store.observeStateChanges(at: []) { recorder.append($0) }
        store.dispatch(Bump())
        #expect(recorder.wait(forCount: 1))
        #expect(
            recorder.values == [
                [StateChange(path: "visible", oldValue: .number("0"), newValue: .number("1"))]
            ])
        withExtendedLifetime(token) {}
    }

    @Test func removedMembersAndShorterArraysAreReported() throws {
        let old = try JSONValue(parsing: Data(#"{"a":1,"b":[1,2,3],"_x":1}"#.utf8))
        let new = try JSONValue(parsing: Data(#"{"b":[1,5],"c":null,"_x":2}"#.utf8))
        let changes = Set(StateDiff.changes(from: old, to: new))
        #expect(
            changes == [
                StateChange(path: "a", oldValue: .number("1"), newValue: nil),
                StateChange(path: "b.1", oldValue: .number("2"), newValue: .number("5")),
                StateChange(path: "b.2", oldValue: .number("3"), newValue: nil),
                StateChange(path: "c", oldValue: nil, newValue: .null),
            ])
    }

    @Test func theParserReadsWhatTheStoreWrites() throws {
        let text =
            #"{"s":"q\"\\\/\n\u00e9\ud83d\ude00","n":[-1.5e3,0,12345678901234567890],"b":[true,false,null],"o":{}}"#
        let value = try JSONValue(parsing: Data(text.utf8))
        #expect(value[path: "s"]?.stringValue == "q\"\\/\né😀")
        #expect(value[path: "n.0"]?.doubleValue == -1500)
        #expect(value[path: "n.2"] == .number("12345678901234567890"), "numbers keep their exact text")
        #expect(value[path: "b.1"] == .bool(false))
        #expect(value[path: "b.2"] == .null)
        #expect(value[path: "o"] == .object([:]))
        #expect(value[path: "missing.deeper"] == nil)
        #expect(try JSONValue(parsing: Data(value.description.utf8)) == value)
    }

    @Test func theParserRefusesBadInput() {
        for text in [
            "", "{", "[1,]", "{\"a\" 1}", "tru", "\"open", "1 2", String(repeating: "[", count: 600),
        ] {
            #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: Data(text.utf8)) }
        }
    }
}
