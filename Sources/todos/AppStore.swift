import Foundation
import ReduxSwift

/// The app's one store, restored from its archive and set up with both features' reducers.
final class AppStore: Store<AppState>, @unchecked Sendable {
    // `@unchecked Sendable`: this subclass adds no stored properties, so `Store`'s own guarantee
    // covers it.

    /// Where the state is kept: `todos.json` in the data directory of this launch.
    static let archive = StateArchive<AppState>(
        file: Launch.dataDirectory.appendingPathComponent("todos.json"))

    static let shared = AppStore()

    private init() {
        super.init(reducers: TodoReducers.reducers, state: Self.archive.restore(default: AppState()))
        register(VisibilityFilterReducers.reducers)
    }
}
