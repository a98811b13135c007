//___FILEHEADER___

import ReduxSwift

/// Reacts to changes of the ___VARIABLE_featureName___ state, the way services observe a store.
final class ___VARIABLE_featureName___Service: Sendable {
    private let token: ObserverToken

    /// Starts observing; `onChange` receives a deep copy of each new state on the store's
    /// delivery thread.
    init(
        store: Store<___VARIABLE_featureName___State> = ___VARIABLE_featureName___Store.shared,
        onChange: @escaping @Sendable (___VARIABLE_featureName___State) -> Void
    ) {
        token = store.observeChanges { _ in onChange(store.currentState()) }
    }

    /// Stops observing. Releasing the service stops it too.
    func stop() {
        token.cancel()
    }
}
