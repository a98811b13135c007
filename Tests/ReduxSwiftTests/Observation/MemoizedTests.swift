import Foundation
import Testing

@testable import ReduxSwift

@Suite struct MemoizedTests {
    @Test func theValueIsComputedAgainOnlyWhenAnInputChanges() {
        let visible = Memoized(\TestState.todos, \TestState.counter) { todos, limit in
            Array(todos.prefix(limit))
        }
        var state = TestState(counter: 1, todos: [Todo(id: 0, title: "a"), Todo(id: 1, title: "b")])
        #expect(visible(state).map(\.title) == ["a"])
        state.log.append("unrelated")
        #expect(visible(state).map(\.title) == ["a"])
        #expect(visible.computeCount == 1)
        state.counter = 2
        #expect(visible(state).map(\.title) == ["a", "b"])
        #expect(visible.computeCount == 2)
    }

    @Test func oneAndThreeInputsWork() {
        let count = Memoized(\TestState.todos) { $0.count }
        let summary = Memoized(\TestState.counter, \TestState.log, \TestState.todos) { counter, log, todos in
            "\(counter)/\(log.count)/\(todos.count)"
        }
        let state = TestState(counter: 3, log: ["x"], todos: [])
        #expect(count(state) == 0)
        #expect(summary(state) == "3/1/0")
        #expect(summary(state) == "3/1/0")
        #expect(summary.computeCount == 1)
    }

    @Test func itMayBeReadFromManyThreadsAtOnce() {
        let doubled = Memoized(\TestState.counter) { $0 * 2 }
        concurrently(8) { index in
            for step in 0..<200 {
                let state = TestState(counter: (index + step) % 4)
                #expect(doubled(state) == state.counter * 2)
            }
        }
    }
}
