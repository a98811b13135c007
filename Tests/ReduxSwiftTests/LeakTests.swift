import Foundation
import ReduxSwift
import Testing

/// Rule 9: stores and tokens are freed.
@Suite(.offThePool) struct LeakTests {
    /// Reports its own deinitialization.
    final class TrackedStore: Store<TestState>, @unchecked Sendable {
        // `@unchecked Sendable`: adds only an immutable `Sendable` property to `Store`.
        let freed: Gate

        init(freed: Gate) {
            self.freed = freed
            super.init(
                reducers: [testReducer], state: TestState(), notificationCenter: StoreNotificationCenter())
        }

        deinit { freed.open() }
    }

    @Test func anUnreferencedStoreIsFreedOnceItsQueuedWorkIsDone() {
        let freed = Gate()
        weak var weakStore: TrackedStore?
        do {
            let store = TrackedStore(freed: freed)
            weakStore = store
            for _ in 0..<1_000 { store.dispatch(TestAction.increment) }
        }
        #expect(freed.wait())
        #expect(weakStore == nil)
    }

    @Test func tokensDoNotKeepTheStoreAlive() {
        let freed = Gate()
        var tokens: [ObserverToken] = []
        do {
            let store = TrackedStore(freed: freed)
            tokens.append(store.observeChanges { _ in })
            tokens.append(store.observeFailures(queue: .main) { _ in })
            tokens.append(
                StoreNotificationCenter.default.addObserver(forName: nil, object: store, queue: nil) { _ in })
            store.dispatch(TestAction.increment)
            _ = store.currentState()
        }
        #expect(freed.wait())
        #expect(tokens.count == 3)
    }

    @Test func aCancelledObserverReleasesItsBlock() {
        final class Captured: Sendable {}
        weak var weakCaptured: Captured?
        let center = StoreNotificationCenter()
        var token: ObserverToken?
        do {
            let captured = Captured()
            weakCaptured = captured
            token = center.addObserver(forName: nil, object: nil, queue: nil) { _ in _ = captured }
        }
        #expect(weakCaptured != nil)
        #expect(token != nil)
        token = nil
        #expect(weakCaptured == nil)
    }
}
