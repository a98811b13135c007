//___FILEHEADER___

import ReduxSwift
import ReduxSwiftTesting
import Testing

// The module that declares the feature: its target's Product Module Name (Build Settings), or
// the target's name in a package. If Xcode reports "No such module", put that name here.
@testable import ___VARIABLE_moduleName:identifier___

@Suite struct ___VARIABLE_featureName___Tests {
    @Test func addingAnItemAppendsIt() {
        let store = TestStore(reducers: ___VARIABLE_featureName___Reducers.reducers, state: ___VARIABLE_featureName___State())
        store.send(___VARIABLE_featureName___Action.add("first")) {
            $0.items = [___VARIABLE_featureName___Item(title: "first")]
        }
        #expect(store.state.count == 1)
    }

    @Test func removingAnItemThatIsNotThereIsRejectedAndChangesNothing() {
        let store = TestStore(
            reducers: ___VARIABLE_featureName___Reducers.reducers,
            state: ___VARIABLE_featureName___State(items: [___VARIABLE_featureName___Item(title: "only")]))
        let error = store.sendExpectingFailure(___VARIABLE_featureName___Action.remove(at: 3))
        #expect(error as? ___VARIABLE_featureName___Error == .noItem(at: 3))
    }

    @Test func inTheAppsStateTheReducersChangeOnlyTheFeaturesPart() {
        let store = TestStore(
            reducers: ___VARIABLE_featureName___Reducers.reducers(at: \___VARIABLE_featureName___HostState.feature),
            state: ___VARIABLE_featureName___HostState())
        store.send(___VARIABLE_featureName___Action.add("a")) { $0.feature.items.append(___VARIABLE_featureName___Item(title: "a")) }
        store.send(___VARIABLE_featureName___Action.setLoading(true)) { $0.feature.isLoading = true }
        store.send(___VARIABLE_featureName___Action.remove(at: 0)) { $0.feature.items = [] }
    }
}

/// A state that holds the feature's as one member, as the app's state does.
private struct ___VARIABLE_featureName___HostState: StateProtocol, Equatable {
    var feature = ___VARIABLE_featureName___State()
    var other = 0
}
