import Foundation
import ReduxSwift

/// The todo feature's reducers, registered by `AppStore` at startup.
enum TodoReducers: ReducerProtocol {
    static var reducers: [Reducer<AppState>] {
        [{ state, action in try reduce(&state, action) }]
    }

    static func reduce(_ state: inout AppState, _ action: any ActionProtocol) throws(TodoError) {
        guard let action = action as? TodoAction else { return }
        switch action {
        case .add(let text):
            let text = try TodoText.validated(text)
            let (nextID, overflow) = state.nextID.addingReportingOverflow(1)
            guard !overflow else { throw .noIDsLeft }
            state.todos.append(Todo(id: state.nextID, text: text))
            state.nextID = nextID
        case .toggle(let id):
            let index = try index(of: id, in: state)
            state.todos[index].isCompleted.toggle()
        case .remove(let id):
            state.todos.remove(at: try index(of: id, in: state))
        case .clearCompleted:
            state.todos.removeAll(where: \.isCompleted)
        }
    }

    private static func index(of id: Int, in state: AppState) throws(TodoError) -> Int {
        guard let index = state.todos.firstIndex(where: { $0.id == id }) else {
            throw .notFound(id: id)
        }
        return index
    }
}
