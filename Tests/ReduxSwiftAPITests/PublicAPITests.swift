import Dispatch
import Foundation
import ReduxSwift
import Testing

/// The API as apps see it: no `@testable import`.
@Suite(.serialized, .offThePool) struct PublicAPITests {
    @Test func theSharedSubclassCollectsReducerArraysAtStartup() {
        let logger = CounterLogger(store: AppStore.shared)
        let start = AppStore.shared.currentState()
        AppStore.shared.dispatch(CounterAction.increment)
        AppStore.shared.dispatch(CounterAction.add(2))
        AppStore.shared.dispatch(Action("todos.add", payload: "Buy milk"))
        let state = AppStore.shared.currentState()
        #expect(state.counter == start.counter + 3)
        #expect(state.todos.last == "Buy milk")
        #expect(logger.seen.waitFor(state.counter))
        logger.stop()
    }

    @Test func theFixedSignaturesCompileAsWritten() throws {
        let reducers: [Reducer<AppState>] = CounterReducers.reducers
        let center: StoreNotificationCenter = StoreNotificationCenter()
        let store: Store<AppState> = Store(reducers: reducers, state: AppState(), notificationCenter: center)
        let _: StoreNotificationCenter = store.notificationCenter
        store.register(TodoReducers.reducers)
        store.dispatch(Action("todos.add", payload: "x"))
        let state: AppState = store.currentState()
        #expect(state.todos == ["x"])
        let token: ObserverToken = center.addObserver(
            forName: .dispatchDidFail, object: store, queue: DispatchQueue.main,
            using: { (note: StoreNotification) in _ = (note.name, note.object, note.userInfo) })
        center.post(StoreNotification(name: Notification.Name("custom"), object: store, userInfo: ["k": 1]))
        center.removeObserver(token)
        token.cancel()
        let names: [Notification.Name] = [.stateDidChange, .dispatchDidFail]
        #expect(Set(names).count == 2)
        let identifier: String = CounterAction.increment.identifier
        let payload: (any Sendable)? = CounterAction.increment.payload
        #expect(identifier == "CounterAction.increment" && payload == nil)
        #expect(try store.snapshot().todos == ["x"])
        let _: StoreNotificationCenter = .default
    }

    @Test func aUserPostedNotificationReachesObserversSynchronouslyWithItsUserInfo() {
        let center = StoreNotificationCenter()
        let received = NSLock()
        nonisolated(unsafe) var values: [Int] = []
        // `nonisolated(unsafe)`: written only by the synchronous observer under `received`, read after
        // `post` returns on the same thread.
        let token = center.addObserver(forName: Notification.Name("ping"), object: nil, queue: nil) { note in
            received.lock()
            values.append(note.userInfo["n"] as? Int ?? -1)
            received.unlock()
        }
        center.post(StoreNotification(name: Notification.Name("ping"), userInfo: ["n": 7]))
        center.post(StoreNotification(name: Notification.Name("pong"), userInfo: ["n": 8]))
        received.lock()
        #expect(values == [7])
        received.unlock()
        token.cancel()
    }
}
