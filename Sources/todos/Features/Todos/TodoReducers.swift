import Foundation
import ReduxSwift

/// The todo feature's reducers, registered by `AppStore` at startup.
enum TodoReducers: ReducerProtocol {
    static var reducers: [Reducer<AppState>] {
        [{ state, action in try reduce(&state, action) }]
    }

    static func reduce(_ state: inout AppState, _ action: any ActionProtocol) throws {
        guard let action = action as? TodoAction else { return }
        switch action {
        case .add(let text):
            let text = text.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { throw TodoError.emptyText }
            state.todos.append(Todo(id: state.nextID, text: text))
            state.nextID += 1
        case .toggle(let id):
            let index = try index(of: id, in: state)
            state.todos[index].isCompleted.toggle()
        case .remove(let id):
            state.todos.remove(at: try index(of: id, in: state))
        case .clearCompleted:
            state.todos.removeAll(where: \.isCompleted)
        }
    }

    private static func index(of id: Int, in state: AppState) throws -> Int {
        guard let index = state.todos.firstIndex(where: { $0.id == id }) else {
            throw TodoError.notFound(id: id)
        }
        return index
    }
}
