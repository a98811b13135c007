//___FILEHEADER___

import ReduxSwift

/// Reacts to changes of the ___VARIABLE_featureName___ state, the way services observe the app's
/// store.
///
/// ```swift
/// let service = ___VARIABLE_featureName___Service(store: AppStore.shared, at: \.feature) { state in  // `feature`: the member that holds it
///     print(state.count)
/// }
/// ```
final class ___VARIABLE_featureName___Service: Sendable {
    private let token: ObserverToken

    /// Starts observing the feature's part of the app's state: `onChange` receives it now, on this
    /// thread, then each time it changes, on the store's delivery thread. The store's queue selects
    /// it from the live state, so a change elsewhere in the app's state costs one comparison.
    ///
    /// - Parameters:
    ///   - store: The app's store.
    ///   - part: Where the feature's state is in the app's state, as its reducers are registered.
    ///   - onChange: Receives a copy of the feature's state.
    init<AppState: StateProtocol>(
        store: Store<AppState>, at part: any KeyPath<AppState, ___VARIABLE_featureName___State> & Sendable,
        onChange: @escaping @Sendable (___VARIABLE_featureName___State) -> Void
    ) {
        token = store.observe({ $0[keyPath: part] }, using: onChange)
    }

    /// Stops observing. Releasing the service stops it too.
    func stop() {
        token.cancel()
    }
}
