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
        let stateReleased = Gate()
        let counterReleased = Gate()
        do {
            let owner = Owner()
            store.observe(witnessed(stateReleased) { $0 }, owner: owner) { _, state in
                delivered.append(state.counter)
            }
            store.observe(witnessed(counterReleased) { $0.counter }, owner: owner) { _, value in
                delivered.append(value)
            }
            #expect(delivered.values == [0, 0])
        }
        let (appends, token) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.append("after"))
        #expect(appends.wait(forCount: 1))
        #expect(delivered.values == [0, 0])
        // The first change after the owner is gone finds it gone, and the store lets go of both.
        #expect(stateReleased.wait(), "the observer of the state is removed")
        #expect(counterReleased.wait(), "the observer of the counter is removed")
        withExtendedLifetime(token) {}
    }

    @Test func anObserverWhoseValueNeverChangesIsRemovedAtTheFirstChangeAfterItsOwnerIsFreed() {
        let store = makeStore()
        let released = Gate()
        let seen = Recorder<Int>()
        do {
            let owner = Owner()
            store.observe(witnessed(released) { $0.todos.count }, owner: owner) { _, count in
                seen.append(count)
            }
            #expect(seen.values == [0])
        }
        // A change elsewhere: the selected count stays 0, so nothing is delivered that could find
        // the owner gone; the store finds it before selecting.
        store.dispatch(TestAction.increment)
        #expect(released.wait(), "the store let go of the observer although its value never changed")
        #expect(seen.values == [0])
    }

    @Test func releasingTheTokenDoesNotStopAnOwnerBoundObserver() {
        let store = makeStore()
        let owner = Owner()
        do {
            let token = store.observe(\.counter, owner: owner) { owner, value in owner.seen.append(value) }
            #expect(owner.seen.values == [0])
            _ = token
        }
        store.dispatch(TestAction.increment)
        #expect(owner.seen.wait { $0.last == 1 }, "the released token left the observer in place")
        #expect(owner.seen.values == [0, 1])
    }

    @Test func cancellingTheTokenStopsAnOwnerBoundObserverEarly() {
        let store = makeStore()
        let owner = Owner()
        let released = Gate()
        let token = store.observe(witnessed(released) { $0.counter }, owner: owner) { owner, value in
            owner.seen.append(value)
        }
        #expect(owner.seen.values == [0])
        token.cancel()
        #expect(released.wait(timeout: 0), "cancelling removes the observer at once")
        let (appends, appendToken) = recordAppends(announcedBy: store)
        store.dispatch(TestAction.increment)
        store.dispatch(TestAction.append("after"))
        #expect(appends.wait(forCount: 1))
        #expect(owner.seen.values == [0], "no value after cancel")
        withExtendedLifetime(appendToken) {}
    }
}
