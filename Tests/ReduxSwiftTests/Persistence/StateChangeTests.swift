import Foundation
import Testing

@testable import ReduxSwift

/// `StateChange` and the JSON it compares, which an archive's loss check, its migration advice and
/// `TestStore`'s failure messages use.
@Suite struct StateChangeTests {
    @Test func aChangedLeafIsReportedWithItsOldAndNewValue() throws {
        let before = TestState(todos: [Todo(id: 0, title: "a"), Todo(id: 1, title: "b")])
        var after = before
        after.todos[1].done = true
        let changes = try StateChange.changes(from: before, to: after)
        #expect(changes == [StateChange(path: "todos.1.done", oldValue: .bool(false), newValue: .bool(true))])
        #expect(changes.first?.description == "todos.1.done: false → true")
    }

    @Test func anAddedElementIsReportedLeafByLeafWithNoOldValue() throws {
        let before = TestState(todos: [Todo(id: 0, title: "a")])
        var after = before
        after.todos.append(Todo(id: 1, title: "b"))
        let changes = try StateChange.changes(from: before, to: after)
        #expect(changes.map(\.path) == ["todos.1"])
        #expect(changes.first?.oldValue == nil)
        #expect(changes.first?.newValue?[path: "title"] == .string("b"))
    }

    @Test func equalStatesHaveNoChanges() throws {
        let state = TestState(counter: 3, log: ["x"], todos: [Todo(id: 0, title: "a")])
        #expect(try StateChange.changes(from: state, to: state).isEmpty)
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
            "", "{", "[,]", "[1,,]", "{\"a\" 1}", "tru", "\"open", "1 2", String(repeating: "[", count: 600),
        ] {
            #expect(throws: JSONValue.ReadError.self) { try JSONValue(parsing: Data(text.utf8)) }
        }
    }
}
