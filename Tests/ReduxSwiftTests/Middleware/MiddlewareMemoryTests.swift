import Foundation
import Testing

@testable import ReduxSwift

/// Opens a gate when it is freed: a middleware that captures one shows when the store lets go of it.
final class FreedMarker: Sendable {
    let freed: Gate

    init(freed: Gate) {
        self.freed = freed
    }

    deinit { freed.open() }
}

/// A middleware that passes every action on and holds `marker` as long as it exists.
func markedMiddleware(_ marker: FreedMarker) -> Middleware<TestState> {
    Middleware("marked") { action, context in
        _ = marker
        context.next(action)
    }
}

@Suite(.offThePool) struct MiddlewareMemoryTests {
    @Test func aFreedStoreReleasesItsMiddlewareAndWhatTheyHold() {
        let storeFreed = Gate()
        let middlewareFreed = Gate()
        do {
            let store = FreedStore(
                freed: storeFreed, middleware: [markedMiddleware(FreedMarker(freed: middlewareFreed))])
            store.dispatch(TestAction.increment)
            #expect(store.currentState().counter == 1)
        }
        #expect(storeFreed.wait())
        #expect(middlewareFreed.wait(timeout: 10), "the store's state and middleware outlived it")
    }

    @Test func aRemovedMiddlewareIsReleasedWithWhatItHolds() {
        let freed = Gate()
        let store = makeStore()
        let registration = store.register(middleware: [markedMiddleware(FreedMarker(freed: freed))])
        store.dispatch(TestAction.increment)
        registration.remove()
        store.dispatch(TestAction.increment)
        #expect(store.currentState().counter == 2)
        #expect(freed.wait(timeout: 10), "the store still holds the removed middleware")
    }
}
