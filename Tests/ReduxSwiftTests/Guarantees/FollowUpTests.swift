import Foundation
import Testing

@testable import ReduxSwift

/// A store whose reducer logs each `append` and dispatches to the same store what `followUps`
/// gives for it: the follow-ups of that entry.
private func storeWithFollowUps(_ followUps: @escaping @Sendable (String) -> [String]) -> Store<TestState> {
    let handle = StoreHandle()
    let store = makeStore([
        { state, action in
            guard case .append(let entry)? = action as? TestAction else { return }
            state.log.append(entry)
            for followUp in followUps(entry) { handle.store.dispatch(TestAction.append(followUp)) }
        }
    ])
    handle.store = store
    return store
}

/// What store code dispatches to its own store is handled right after the action that dispatched
/// it, ahead of everything else queued: the order of nested synchronous dispatches.
@Suite(.offThePool) struct FollowUpTests {
    @Test func followUpsComeRightAfterTheirActionDepthFirstInTheOrderTheyWereDispatched() throws {
        let store = storeWithFollowUps { entry in
            switch entry {
            case "a": ["b", "c"]
            case "b": ["d"]
            default: []
            }
        }
        // Everything is queued before anything is reduced.
        let lock = store.lock()
        store.dispatch(TestAction.append("a"))
        store.dispatch(TestAction.append("outside"))
        try lock.release()
        #expect(store.currentState().log == ["a", "b", "d", "c", "outside"])
    }

    @Test func aReadRightAfterADispatchSeesWhatReducersAndMiddlewareDispatchedForIt() {
        let handle = StoreHandle()
        let store = Store(
            reducers: [
                testReducer,
                { _, action in
                    if case .append(let entry)? = action as? TestAction, entry.hasSuffix("!"),
                        !entry.hasSuffix("!!")
                    {
                        handle.store.dispatch(TestAction.append(entry + "!"))
                    }
                },
            ], state: TestState(),
            middleware: [echoMiddleware()], notificationCenter: StoreNotificationCenter())
        handle.store = store
        for round in 0..<2_000 {
            store.dispatch(TestAction.append("\(round)"))
            let log = store.currentState().log
            guard log.suffix(3) == ["\(round)", "\(round)!", "\(round)!!"] else {
                Issue.record("round \(round): the read returned \(log.suffix(3))")
                return
            }
        }
    }

    @Test func anActionAndItsFollowUpsAreAnnouncedInOneNotification() {
        // "a<n>" dispatches "b<n>" and "c<n>".
        let store = storeWithFollowUps { entry in
            entry.hasPrefix("a") ? ["b" + entry.dropFirst(), "c" + entry.dropFirst()] : []
        }
        let announced = Recorder<[String]>()
        let token = store.observeChanges { note in
            announced.append(
                note.actions.compactMap { action in
                    if case .append(let entry)? = action as? TestAction { entry } else { nil }
                })
        }
        for round in 0..<200 {
            store.dispatch(TestAction.append("a\(round)"))
            // One round at a time, so that no notification merges two rounds.
            guard announced.wait(until: { $0.last?.last == "c\(round)" }) else {
                Issue.record("round \(round) was not announced whole: \(announced.values.suffix(2))")
                break
            }
        }
        let split = announced.values.filter { $0.count != 3 }
        #expect(split.isEmpty, "announced apart: \(split.prefix(4))")
        withExtendedLifetime(token) {}
    }

    @Test func aChainOfAHundredThousandFollowUpsEndsWithoutOverflowingTheStack() {
        let handle = StoreHandle()
        let store = makeStore([
            { state, action in
                guard case .add(let remaining)? = action as? TestAction else { return }
                state.counter += 1
                if remaining > 1 { handle.store.dispatch(TestAction.add(remaining - 1)) }
            }
        ])
        handle.store = store
        store.dispatch(TestAction.add(100_000))
        #expect(store.currentState().counter == 100_000)
    }

    @Test func aTreeOfFollowUpsIsReducedInPreorder() {
        // Each node "r…" shorter than 12 dispatches its two children "r…0" and "r…1".
        let store = storeWithFollowUps { $0.hasPrefix("r") && $0.count < 12 ? [$0 + "0", $0 + "1"] : [] }
        func preorder(_ node: String) -> [String] {
            node.count < 12 ? [node] + preorder(node + "0") + preorder(node + "1") : [node]
        }
        store.dispatch(TestAction.append("r"))
        store.dispatch(TestAction.append("after"))
        let log = store.currentState().log
        let expected = preorder("r") + ["after"]
        #expect(log.count == 4_096)
        #expect(log == expected)
    }

    @Test func theFollowUpsOfAnActionQueuedBeforeALockAreNotHeldByIt() throws {
        let store = storeWithFollowUps { $0 == "a" ? ["from a"] : [] }
        store.dispatch(TestAction.append("a"))
        let lock = store.lock()
        store.dispatch(TestAction.append("held"))
        // The read waits for "a", which the lock does not hold, and so for its follow-up.
        #expect(store.currentState().log == ["a", "from a"])
        try lock.release()
        #expect(store.currentState().log == ["a", "from a", "held"])
    }

    @Test func aDispatchThroughALockFromAReducerIsAFollowUpToo() throws {
        let lockBox = LockedBox<DispatchLock?>(nil)
        let store = makeStore([
            testReducer,
            { _, action in
                if case .append("a")? = action as? TestAction {
                    lockBox.value?.dispatch(TestAction.append("through the lock"))
                }
            },
        ])
        lockBox.value = store.lock()
        store.dispatch(TestAction.append("held"))
        lockBox.value?.dispatch(TestAction.append("a"))
        lockBox.value?.dispatch(TestAction.append("b"))
        // Both passed the lock, and so did what "a" dispatched through it, right after "a".
        #expect(store.currentState().log == ["a", "through the lock", "b"])
        try lockBox.value?.release()
        #expect(store.currentState().log == ["a", "through the lock", "b", "held"])
    }

    @Test func aDispatchToAnotherStoreJoinsThatStoresQueue() throws {
        let other = makeStore()
        let store = makeStore([
            testReducer,
            { _, action in
                if case .append("a")? = action as? TestAction { other.dispatch(TestAction.append("from a")) }
            },
        ])
        let lock = other.lock()
        other.dispatch(TestAction.append("queued first"))
        store.dispatch(TestAction.append("a"))
        _ = store.currentState()
        try lock.release()
        #expect(other.currentState().log == ["queued first", "from a"])
    }

    @Test func reducersRegisteredByAReducerSeeAllItsFollowUpsEvenThoseDispatchedBeforeIt() {
        let handle = StoreHandle()
        let seen = Recorder<String>()
        let late: Reducer<TestState> = { _, action in
            if case .append(let entry)? = action as? TestAction { seen.append(entry) }
        }
        let store = makeStore([
            testReducer,
            { _, action in
                guard case .append("go")? = action as? TestAction else { return }
                handle.store.dispatch(TestAction.append("before"))
                handle.store.register([late])
                handle.store.dispatch(TestAction.append("after"))
            },
        ])
        handle.store = store
        store.dispatch(TestAction.append("go"))
        store.dispatch(TestAction.append("next"))
        #expect(store.currentState().log == ["go", "before", "after", "next"])
        #expect(seen.values == ["before", "after", "next"])
    }

    @Test func storeCodeThatDispatchesWithoutEndIsReportedOnce() {
        let warnings = Recorder<String>()
        let listener = RuntimeWarning.addListener { message in
            if message.hasPrefix("reducers or middleware dispatched") { warnings.append(message) }
        }
        defer { RuntimeWarning.removeListener(listener) }
        let handle = StoreHandle()
        let store = makeStore([
            { state, action in
                guard case .add(let count)? = action as? TestAction else { return }
                state.counter = count
                if count < 5_000 { handle.store.dispatch(TestAction.add(count + 1)) }
            }
        ])
        handle.store = store
        (store.kernel.liveState as? LiveState<TestState>)?.followUpWarningThreshold = 1_000
        store.dispatch(TestAction.add(1))
        #expect(store.currentState().counter == 5_000)
        #expect(warnings.count == 1)
        #expect(warnings.values.first?.contains("endless loop") == true)
    }
}
