//___FILEHEADER___

import ReduxSwift

/// Everything that can happen to the ___VARIABLE_featureName___ state.
enum ___VARIABLE_featureName___Action: ActionProtocol, Equatable {
    case add(String)
    case remove(at: Int)
    case setLoading(Bool)
}
