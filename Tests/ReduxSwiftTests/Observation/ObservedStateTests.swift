import Foundation
import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct ObservedStateTests {
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @MainActor
    @Test func theStateFollowsTheStoreOnTheMainActor() async {
        let store = makeStore()
        let model = ObservedState(store)
        let counter = ObservedValue(store) { $0.counter }
        #expect(model.state.counter == 0)
        store.dispatch(TestAction.add(3))
        // The values arrive on the main actor, which this test gives up at each turn.
        let deadline = Date(timeIntervalSinceNow: 20)
        while model.state.counter != 3 || counter.value != 3, Date() < deadline {
            await Task.yield()
        }
        #expect(model.state.counter == 3)
        #expect(counter.value == 3)
    }
}
