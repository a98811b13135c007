//___FILEHEADER___

import ReduxSwift

/// The state of the ___VARIABLE_featureName___ feature.
///
/// Keep it to plain values: every reader gets its own deep copy, decoded from JSON.
///
/// No annotation is needed in a target whose code is main-actor-isolated by default: conforming
/// to `StateProtocol` in this declaration keeps the type nonisolated, as the store needs. Declare
/// other conformances here too: one added in an extension would be main-actor-isolated there.
struct ___VARIABLE_featureName___State: StateProtocol, Equatable {
    var items: [String] = []
    var isLoading = false

    /// Derived values are getters, computed from the state when they are read.
    var count: Int { items.count }
}
