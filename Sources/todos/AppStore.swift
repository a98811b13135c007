import ReduxSwift

/// The app's one store, set up with both features' reducers.
///
/// `main` creates it with the todos `DataFile` read, once it holds the data directory's lock.
final class AppStore: Store<AppState>, @unchecked Sendable {
    // `@unchecked Sendable`: this subclass adds no stored properties, so `Store`'s own guarantee
    // covers it.

    init(state: AppState) {
        super.init(reducers: TodoReducers.reducers, state: state)
        register(VisibilityFilterReducers.reducers)
    }
}
