import Foundation
import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct OwnerBoundObservationTests {
    final class Owner: Sendable {
        let seen = Recorder<Int>()
        /// Opened when the owner is freed.
        let freed: Gate

        init(freed: Gate = Gate()) {
            self.freed = freed
        }

        deinit { freed.open() }
    }

    @Test func theOwnerIsPassedToTheBlockAndNotKeptAlive() {
        let store = makeStore()
        let freed = Gate()
        do {
            let owner = Owner(freed: freed)
            store.observe(\.counter, owner: owner) { owner, value in owner.seen.append(value) }
            store.dispatch(TestAction.increment)
            #expect(owner.seen.wait { $0.last == 1 })
        }
        // The delivery thread holds the owner until the block returns, which may be just after the
        // value is seen: wait for the owner to be freed, which a registration keeping it prevents.
        #expect(freed.wait(timeout: 10), "the registration does not retain its owner")
    }

    @Test func nothingIsDeliveredAfterTheOwnerIsFreedAndTheRegistrationGoes() {
        let store = makeStore()
        let delivered = Recorder<Int>()
        do {
            let owner = Owner()
            store.observeChanges(owner: owner) { _, _ in delivered.append(1) }
            store.observe(\.counter, owner: owner) { _, value in delivered.append(value) }
            #expect(store.notificationCenter.observerCount == 2)
        }
        let before = delivered.count
        let (appends, token) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.append("after"))
        #expect(appends.wait(forCount: 1))
        #expect(delivered.count == before)
        #expect(store.notificationCenter.observerCount == 1, "only the recorder remains")
        withExtendedLifetime(token) {}
    }

    @Test func releasingTheTokenDoesNotStopAnOwnerBoundObserver() {
        let store = makeStore()
        let owner = Owner()
        _ = store.observeChanges(owner: owner) { owner, _ in owner.seen.append(1) }
        store.dispatch(TestAction.increment)
        #expect(owner.seen.wait(forCount: 1))
    }

    @Test func cancellingTheTokenStopsAnOwnerBoundObserverEarly() {
        let store = makeStore()
        let owner = Owner()
        let token = store.observeChanges(owner: owner) { owner, _ in owner.seen.append(1) }
        token.cancel()
        #expect(store.notificationCenter.observerCount == 0)
    }
}
