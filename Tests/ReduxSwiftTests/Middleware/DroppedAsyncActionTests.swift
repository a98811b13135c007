import Foundation
import Testing

@testable import ReduxSwift

/// Async actions whose dispatch never reaches a store end without running, so that their
/// `finished()` returns.
@Suite(.offThePool) struct DroppedAsyncActionTests {
    @Test func anAsyncActionDispatchedByCancelledWorkEndsWithoutRunning() async {
        let store = Store(
            reducers: [testReducer], state: TestState(), middleware: [.asyncActions()],
            notificationCenter: StoreNotificationCenter())
        let ran = Recorder<String>()
        let child = AsyncAction<TestState, Void>("child") { _ in ran.append("child") }
        let batched = AsyncAction<TestState, Void>("batched") { _ in ran.append("batched") }
        let started = AsyncGate()
        let resume = AsyncGate()
        let dispatched = AsyncGate()
        let parent = AsyncAction<TestState, Void>("parent") { context in
            started.open()
            await resume.opened()
            // Cancelled by now: neither dispatch reaches the store.
            context.dispatch(child)
            context.dispatch(batch: [TestAction.increment, batched])
            dispatched.open()
        }
        store.dispatch(parent)
        await started.opened()
        parent.cancel()
        resume.open()
        await dispatched.opened()
        #expect(await finishes(child, within: 10))
        #expect(await finishes(batched, within: 10))
        #expect(await finishes(parent, within: 10))
        #expect(ran.values.isEmpty)
        let state = await onOwnThread { store.currentState() }
        #expect(state == TestState())
    }

    @Test func anAsyncActionGivenToAKeptDispatchLaterFunctionOnceTheStoreIsGoneEnds() async {
        let freed = Gate()
        let kept = LockedBox<(@Sendable (any ActionProtocol) -> Void)?>(nil)
        await onOwnThread {
            let store = FreedStore(
                freed: freed, middleware: [.asyncActions(), keepingMiddleware(into: kept)])
            store.dispatch(TestAction.append("keep"))
            _ = store.currentState()
        }
        #expect(await onOwnThread { freed.wait() }, "the kept function kept the store alive")
        guard let dispatch = kept.value else {
            Issue.record("the middleware kept no function")
            return
        }
        let ran = Recorder<String>()
        let alone = AsyncAction<TestState, Void>("alone") { _ in ran.append("alone") }
        let nested = AsyncAction<TestState, Void>("nested") { _ in ran.append("nested") }
        dispatch(alone)
        dispatch(ActionBatch([TestAction.increment, ActionBatch([nested])]))
        #expect(await finishes(alone, within: 10))
        #expect(await finishes(nested, within: 10))
        #expect(ran.values.isEmpty)
    }
}
