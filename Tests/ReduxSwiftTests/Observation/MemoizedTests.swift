import Foundation
import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct MemoizedTests {
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

    @Test func anInputsEqualityMayReadTheSameValueAgain() throws {
        let doubled = Memoized(\HookedInput.self) { $0.value * 2 }
        #expect(doubled(HookedInput(value: 1)) == 2)
        let inner = Recorder<Int>()
        // On its own thread, so that a lock held around `==` fails the test instead of hanging it.
        let read = onNewThread {
            _ = doubled(HookedInput(value: 1) { inner.append(doubled(HookedInput(value: 1))) })
        }
        try #require(read.wait(timeout: 10), "the outer read holds a lock the inner one waits for")
        #expect(inner.values == [2])
        #expect(doubled.computeCount == 1)
    }

    @Test func aReplacedValuesDeinitMayReadTheSameValue() throws {
        let hook = Hook()
        let probes = Memoized(\Int.self) { value in
            DeinitProbe(value) { if $0 == 1 { hook.run() } }
        }
        let readInside = Recorder<Int>()
        hook.set { readInside.append(probes(2).value) }
        _ = probes(1)
        // Reading 2 replaces the cached 1, whose deinit reads 2 again: on its own thread, so that
        // a lock held while releasing 1 fails the test instead of hanging it.
        let read = finishing(within: 10) { probes(2).value }
        try #require(read == 2, "the replaced value was released under the lock its deinit reads through")
        #expect(readInside.values == [2])
        hook.set(nil)
    }
}

/// A value that calls `onDeinit` with its own value when it is released, so that a test can run
/// code in a `deinit`.
final class DeinitProbe: Sendable {
    let value: Int
    private let onDeinit: @Sendable (Int) -> Void

    init(_ value: Int, onDeinit: @escaping @Sendable (Int) -> Void) {
        self.value = value
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit(value)
    }
}

/// An input whose `==` runs both sides' hooks, so that a test can run code while a `Memoized`
/// compares inputs.
struct HookedInput: Equatable, Sendable {
    let value: Int
    var hook: @Sendable () -> Void = {}

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.hook()
        rhs.hook()
        return lhs.value == rhs.value
    }
}
