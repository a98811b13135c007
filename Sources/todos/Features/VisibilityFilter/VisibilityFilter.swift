import ReduxSwift

/// Which todos `list` shows.
enum VisibilityFilter: String, Codable, CaseIterable, Sendable {
    case all
    case active
    case completed

    func includes(_ todo: Todo) -> Bool {
        switch self {
        case .all: return true
        case .active: return !todo.isCompleted
        case .completed: return todo.isCompleted
        }
    }
}

/// Changes the visibility filter.
enum VisibilityFilterAction: ActionProtocol, Equatable, Codable {
    case show(VisibilityFilter)
}

/// The visibility filter feature's reducers, registered by `AppStore` at startup.
enum VisibilityFilterReducers: ReducerProtocol {
    static var reducers: [Reducer<AppState>] {
        [
            { state, action in
                guard case .show(let filter)? = action as? VisibilityFilterAction else { return }
                state.filter = filter
            }
        ]
    }
}
