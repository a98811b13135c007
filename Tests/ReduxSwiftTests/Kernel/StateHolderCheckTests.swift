import Foundation
import Testing

@testable import ReduxSwift

/// The invariants behind the store's unsafe code check themselves in debug builds: each misuse
/// stops the program (run in a child process, so that the stop can be observed).
@Suite(.offThePool) struct StateHolderCheckTests {
    #if DEBUG
    @Test func aStatePointerUsedAfterItsScopeStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            var state = 0
            var escaped: StatePointer?
            StatePointer.with(&state) { escaped = $0 }
            _ = escaped?.assuming(Int.self).pointee
        }
    }

    @Test func aStatePointerReadAsAnotherTypeStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            var state = 0
            StatePointer.with(&state) { _ = $0.assuming(String.self).pointee }
        }
    }

    @Test func aThreadThatDoesNotOwnTheStateCannotReduceIt() async {
        await #expect(processExitsWith: .failure) {
            let store = makeStore()
            _ = store.kernel.liveState.reduce(
                [.action(TestAction.increment)], scope: StoreCodeScope(reducing: nil, holding: nil))
        }
    }

    @Test func aThreadThatDoesNotOwnTheStateCannotEncodeIt() async {
        await #expect(processExitsWith: .failure) {
            let store = makeStore()
            _ = store.kernel.liveState.encodeState(version: 1)
        }
    }
    #endif

    @Test func aMiddlewareContextUsedAfterItsMiddlewareReturnedStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let kept = ContextBox()
            let store = Store<TestState>(
                reducers: [testReducer], state: TestState(),
                middleware: [
                    Middleware("keeps its context") { action, context in
                        kept.context = context
                        context.next(action)
                    }
                ],
                notificationCenter: StoreNotificationCenter())
            store.dispatch(TestAction.increment)
            _ = store.currentState()
            _ = kept.context?.currentState()
        }
    }

    @Test func theHolderOfTheStateReducesAndEncodesWithoutStopping() {
        let store = makeStore()
        store.dispatch(TestAction.increment)
        #expect(store.currentState().counter == 1)
    }
}

/// Keeps a middleware's context past its call, which a middleware must not do.
///
/// `@unchecked Sendable`: written by the store's reducing thread, read by the test after a read of
/// the store, which orders the two.
final class ContextBox: @unchecked Sendable {
    var context: Middleware<TestState>.Context?
}
