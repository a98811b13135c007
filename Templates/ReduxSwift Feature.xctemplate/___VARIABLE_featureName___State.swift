___FILEHEADER___

import ReduxSwift

/// The state of the ___VARIABLE_featureName___ feature.
///
/// Keep it to plain values: every reader gets its own deep copy, decoded from JSON.
struct ___VARIABLE_featureName___State: StateProtocol, Equatable {
    var items: [String] = []
    var isLoading = false

    /// Derived values are getters, computed from the state when they are read.
    var count: Int { items.count }
}
