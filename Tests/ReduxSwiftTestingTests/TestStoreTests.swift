import Foundation
import ReduxSwift
import ReduxSwiftTesting
import Testing

struct CounterState: StateProtocol, Equatable {
    var count = 0
    var log: [String] = []
}

enum CounterAction: ActionProtocol, Equatable {
    case increment
    case add(Int)
    case note(String)
    case reject
    case incrementTwiceLater
}

struct Rejected: Error, Equatable {}

let counterReducers: [Reducer<CounterState>] = [
    { state, action in
        switch action as? CounterAction {
        case .increment?: state.count += 1
        case .add(let amount)?: state.count += amount
        case .note(let text)?: state.log.append(text)
        case .reject?:
            state.count = -1
            throw Rejected()
        case .incrementTwiceLater?, nil: break
        }
    }
]

/// Dispatches two increments when it sees `.incrementTwiceLater`, the way a feature's effects do.
let echoMiddleware = Middleware<CounterState>("echo") { action, context in
    context.next(action)
    if case .incrementTwiceLater? = action as? CounterAction {
        context.dispatch(CounterAction.increment)
        context.dispatch(CounterAction.increment)
    }
}

func makeTestStore(exhaustivity: TestStore<CounterState>.Exhaustivity = .on) -> TestStore<CounterState> {
    TestStore(
        reducers: counterReducers, state: CounterState(),
        middleware: [echoMiddleware, .asyncActions()], exhaustivity: exhaustivity)
}

/// Whether a recorded issue's text contains `text`.
func mentions(_ text: String) -> @Sendable (Issue) -> Bool {
    { issue in String(describing: issue).contains(text) }
}

@Suite struct TestStoreTests {
    @Test func aSendWhoseChangeIsDescribedExactlyPasses() {
        let store = makeTestStore()
        store.send(CounterAction.increment) { $0.count = 1 }
        store.send(CounterAction.note("hi")) { $0.log = ["hi"] }
        #expect(store.state == CounterState(count: 1, log: ["hi"]))
        store.finish()
    }

    @Test func aWrongAssertionFailsWithTheValuesThatDiffer() {
        let store = makeTestStore()
        withKnownIssue {
            store.send(CounterAction.add(3)) { $0.count = 2 }
        } matching: { issue in
            mentions("state after add(3) differs")(issue) && mentions("count: expected 2, actual 3")(issue)
        }
        // The actual state is taken as asserted, so later sends are checked against it.
        store.send(CounterAction.increment) { $0.count = 4 }
    }

    @Test func anUnassertedChangeFails() {
        let store = makeTestStore()
        withKnownIssue {
            store.send(CounterAction.note("surprise"))
        } matching: {
            mentions("log.0: expected absent, actual \"surprise\"")($0)
        }
    }

    @Test func actionsFromAsyncWorkAreReceivedAndChecked() async {
        let store = makeTestStore()
        store.send(
            AsyncAction<CounterState, Void>("load") { context in context.dispatch(CounterAction.add(5)) })
        await store.receive(CounterAction.add(5)) { $0.count = 5 }
        store.finish()
    }

    @Test func actionsDispatchedByMiddlewareAreReceivedInOrder() async {
        let store = makeTestStore()
        store.send(CounterAction.incrementTwiceLater)
        await store.receive(CounterAction.increment) { $0.count = 1 }
        await store.receive(CounterAction.increment) { $0.count = 2 }
        store.finish()
    }

    @Test func waitingForAnActionThatNeverComesFailsAfterTheTimeout() async {
        let store = makeTestStore()
        await withKnownIssue {
            await store.receive(CounterAction.increment, timeout: 0.2)
        } matching: {
            mentions("expected to receive increment within 0.2 s")($0)
        }
    }

    @Test func receivingAnotherActionThanExpectedFails() async {
        let store = makeTestStore()
        store.send(AsyncAction<CounterState, Void> { context in context.dispatch(CounterAction.add(2)) })
        await withKnownIssue {
            await store.receive(CounterAction.increment)
        } matching: {
            mentions("expected to receive increment, received add(2)")($0)
        }
    }

    @Test func receivedActionsLeftUnassertedFailTheNextSendAndFinish() async {
        let store = makeTestStore()
        store.send(CounterAction.incrementTwiceLater)
        withKnownIssue {
            store.finish()
        } matching: {
            mentions("2 received action(s) were not asserted: increment, increment")($0)
        }
        store.send(CounterAction.incrementTwiceLater)
        withKnownIssue {
            store.send(CounterAction.note("next")) { $0.log = ["next"] }
        } matching: {
            mentions("were not asserted before sending note(\"next\")")($0)
        }
    }

    @Test func withExhaustivityOffOnlyTheDescribedChangesAreChecked() async {
        let store = makeTestStore(exhaustivity: .off)
        store.send(CounterAction.note("a"))  // an unasserted change: allowed
        store.send(
            AsyncAction<CounterState, Void> { context in
                for action in [CounterAction.increment, .note("b"), .add(7)] { context.dispatch(action) }
            })
        // Skips the increment and the note; checks only the count.
        await store.receive(CounterAction.add(7)) { $0.count = 8 }
        store.send(CounterAction.add(1)) { $0.count = 9 }
        #expect(store.state == CounterState(count: 9, log: ["a", "b"]))
        store.send(CounterAction.incrementTwiceLater)
        store.finish()  // unasserted received actions are allowed
    }

    @Test func anExpectedFailureReturnsTheErrorAndLeavesTheState() {
        let store = makeTestStore()
        store.send(CounterAction.increment) { $0.count = 1 }
        let error = store.sendExpectingFailure(CounterAction.reject)
        #expect(error as? Rejected == Rejected())
        #expect(store.state.count == 1)
        withKnownIssue {
            store.send(CounterAction.reject)
        } matching: {
            mentions("reject failed")($0)
        }
        withKnownIssue {
            store.sendExpectingFailure(CounterAction.increment)
        } matching: {
            mentions("increment was expected to fail")($0)
        }
    }

    @Test func anErrorThrownByTheAppsMiddlewareIsReportedNotLost() {
        let guardMiddleware = Middleware<CounterState>("no negative amounts") { action, context in
            if case .add(let amount)? = action as? CounterAction, amount < 0 { throw Rejected() }
            context.next(action)
        }
        let store = TestStore(reducers: counterReducers, state: CounterState(), middleware: [guardMiddleware])
        let error = store.sendExpectingFailure(CounterAction.add(-1))
        #expect(error as? Rejected == Rejected())
        withKnownIssue {
            store.send(CounterAction.add(-2))
        } matching: {
            mentions("add(-2) failed: Rejected()")($0)
        }
        store.send(CounterAction.add(2)) { $0.count = 2 }
        store.finish()
    }

    @Test func skippingReceivedActionsTakesTheStoresState() {
        let store = makeTestStore()
        store.send(CounterAction.incrementTwiceLater)
        store.skipReceivedActions()
        #expect(store.state.count == 2)
        store.send(CounterAction.increment) { $0.count = 3 }
        store.finish()
    }
}
