//___FILEHEADER___

import ReduxSwift
import Testing

// The module that declares the feature: its target's Product Module Name (Build Settings), or
// the target's name in a package. If Xcode reports "No such module", put that name here.
@testable import ___VARIABLE_moduleName:identifier___

@Suite struct ___VARIABLE_featureName___ReducerTests {
    @Test func addingAnItemAppendsIt() throws {
        var state = ___VARIABLE_featureName___State()
        try ___VARIABLE_featureName___Reducers.reduce(&state, ___VARIABLE_featureName___Action.add("first"))
        #expect(state.items == [___VARIABLE_featureName___Item(title: "first")])
        #expect(state.count == 1)
    }

    @Test func removingAnItemThatIsNotThereIsRejected() throws {
        var state = ___VARIABLE_featureName___State(items: [___VARIABLE_featureName___Item(title: "only")])
        #expect(throws: ___VARIABLE_featureName___Error.noItem(at: 3)) {
            try ___VARIABLE_featureName___Reducers.reduce(&state, ___VARIABLE_featureName___Action.remove(at: 3))
        }
        #expect(state.items.map(\.title) == ["only"])
    }

    @Test func theStoreAppliesDispatchedActionsInOrder() {
        let store = Store(reducers: ___VARIABLE_featureName___Reducers.reducers, state: ___VARIABLE_featureName___State())
        store.dispatch(___VARIABLE_featureName___Action.add("a"))
        store.dispatch(___VARIABLE_featureName___Action.add("b"))
        store.dispatch(___VARIABLE_featureName___Action.remove(at: 0))
        #expect(store.currentState().items.map(\.title) == ["b"])
    }
}
