//___FILEHEADER___

import ReduxSwift

/// The state of the ___VARIABLE_featureName___ feature.
///
/// Keep it to plain values. It is `Sendable`, so that the feature's service can observe it: the
/// store's queue selects it from the live state and hands the service a copy that shares nothing
/// mutable with the store.
///
/// No annotation is needed in a target whose code is main-actor-isolated by default: conforming
/// to `StateProtocol` in this declaration keeps the type nonisolated, as the store needs. Declare
/// other conformances here too: one added in an extension would be main-actor-isolated there.
struct ___VARIABLE_featureName___State: StateProtocol, Equatable, Sendable {
    var items: [___VARIABLE_featureName___Item] = []
    var isLoading = false

    /// Derived values are getters, computed from the state when they are read.
    var count: Int { items.count }
}

/// One item of the ___VARIABLE_featureName___ feature.
///
/// `nonisolated`: where code is main-actor-isolated by default (a new Xcode 26 app target), its
/// `Codable` and `Equatable` conformances would be too, and the store, which encodes, decodes and
/// compares the state on its own threads, could not use them. Declare every value type you keep in
/// the state this way; the state type itself needs nothing, since `StateProtocol` keeps it
/// nonisolated.
nonisolated struct ___VARIABLE_featureName___Item: Codable, Equatable, Sendable {
    var title: String
}
