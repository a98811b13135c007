//___FILEHEADER___

import ReduxSwift

/// The reducers of the ___VARIABLE_featureName___ feature: they change only the feature's state.
///
/// The app's store registers them at startup, at the member of the app's state that holds the
/// feature's state, through `reducers(at:)`:
///
/// ```swift
/// register(___VARIABLE_featureName___Reducers.reducers(at: \.feature))  // `feature`: that member's name
/// ```
///
/// The store runs them on its own threads. Conforming to `ReducerProtocol` keeps this type
/// nonisolated even where code is main-actor-isolated by default; put the helpers they call in
/// this declaration, since Swift 6.2 isolates an extension's members to the main actor there.
enum ___VARIABLE_featureName___Reducers: ReducerProtocol {
    static var reducers: [Reducer<___VARIABLE_featureName___State>] {
        [{ state, action in try reduce(&state, action) }]
    }

    /// Applies one action to the state in place; actions of other features are ignored.
    ///
    /// Throwing rejects the action: the store keeps the state exactly as it was and posts
    /// `.dispatchDidFail`.
    static func reduce(_ state: inout ___VARIABLE_featureName___State, _ action: any ActionProtocol) throws {
        guard let action = action as? ___VARIABLE_featureName___Action else { return }
        switch action {
        case .add(let title):
            state.items.append(___VARIABLE_featureName___Item(title: title))
        case .remove(let index):
            guard state.items.indices.contains(index) else {
                throw ___VARIABLE_featureName___Error.noItem(at: index)
            }
            state.items.remove(at: index)
        case .setLoading(let isLoading):
            state.isLoading = isLoading
        }
    }
}

/// Why the ___VARIABLE_featureName___ reducers rejected an action.
enum ___VARIABLE_featureName___Error: Error, Equatable {
    case noItem(at: Int)
}
