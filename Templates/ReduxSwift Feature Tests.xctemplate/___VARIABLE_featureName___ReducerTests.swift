___FILEHEADER___

import ReduxSwift
import Testing

@testable import ___PROJECTNAMEASIDENTIFIER___

@Suite struct ___VARIABLE_featureName___ReducerTests {
    @Test func addingAnItemAppendsIt() throws {
        var state = ___VARIABLE_featureName___State()
        try ___VARIABLE_featureName___Reducers.reduce(&state, ___VARIABLE_featureName___Action.add("first"))
        #expect(state.items == ["first"])
        #expect(state.count == 1)
    }

    @Test func removingAnItemThatIsNotThereIsRejected() throws {
        var state = ___VARIABLE_featureName___State(items: ["only"])
        #expect(throws: ___VARIABLE_featureName___Error.noItem(at: 3)) {
            try ___VARIABLE_featureName___Reducers.reduce(&state, ___VARIABLE_featureName___Action.remove(at: 3))
        }
        #expect(state.items == ["only"])
    }

    @Test func theStoreAppliesDispatchedActionsInOrder() {
        let store = Store(reducers: ___VARIABLE_featureName___Reducers.reducers, state: ___VARIABLE_featureName___State())
        store.dispatch(___VARIABLE_featureName___Action.add("a"))
        store.dispatch(___VARIABLE_featureName___Action.add("b"))
        store.dispatch(___VARIABLE_featureName___Action.remove(at: 0))
        #expect(store.currentState().items == ["b"])
    }
}
