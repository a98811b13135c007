//___FILEHEADER___

import ReduxSwift

/// The ___VARIABLE_featureName___ store: one shared instance, set up with its reducer arrays.
///
/// ```swift
/// ___VARIABLE_featureName___Store.shared.dispatch(___VARIABLE_featureName___Action.add("first"))
/// ```
final class ___VARIABLE_featureName___Store: Store<___VARIABLE_featureName___State>, @unchecked Sendable {
    // `@unchecked Sendable`: this subclass adds no stored properties, so `Store`'s own guarantee
    // covers it. Protect any mutable property you add.

    static let shared = ___VARIABLE_featureName___Store()

    private init() {
        super.init(reducers: ___VARIABLE_featureName___Reducers.reducers, state: ___VARIABLE_featureName___State())
    }
}
