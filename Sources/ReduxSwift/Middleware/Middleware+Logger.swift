import Dispatch
import Foundation

extension Middleware {
    /// A middleware that writes one line per action: what it was, how it ended, and how long the
    /// rest of the chain and the reducers took.
    ///
    /// ```swift
    /// let store = Store(reducers: reducers, state: AppState(), middleware: [.logger()])
    /// store.dispatch(TodoAction.add("Milk"))
    /// // [AppState] TodoAction.add("Milk") committed in 0.012 ms
    /// ```
    ///
    /// A batch is described by the actions reducers see, nested batches expanded:
    /// `ActionBatch of 2 actions [TodoAction.add("Milk"), TodoAction.add("Eggs")]`, so that a batch
    /// nested at any depth is described without recursing into it.
    ///
    /// Put it first to time everything after it. Lines are written on the store's queue, in the
    /// order actions are handled; a slow `write` slows the store down.
    ///
    /// - Parameters:
    ///   - label: Starts each line, in brackets; the state type's name by default.
    ///   - write: Receives each line, without a trailing newline; standard error by default.
    public static func logger(
        label: String = String(describing: State.self),
        write: (@Sendable (String) -> Void)? = nil
    ) -> Middleware {
        let write = write ?? writeLineToStandardError
        return Middleware(
            name: "logger",
            erased: { action, call in
                let start = DispatchTime.now().uptimeNanoseconds
                let outcome = call.next(action)
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
                let duration = "in " + String(format: "%.3f", elapsed) + " ms"
                let ending: String
                switch outcome {
                case .committed: ending = "committed"
                case .failed(let error): ending = "failed (\(error))"
                case .dropped: ending = "dropped"
                case .started: ending = "started"
                }
                write("[\(label)] \(logDescription(of: action)) \(ending) \(duration)")
            })
    }
}

/// `action` as the logger writes it: as `String(describing:)` does, except that a batch is named with
/// the number and descriptions of the actions it holds at every depth, expanded iteratively.
private func logDescription(of action: any ActionProtocol) -> String {
    guard let batch = ActionBatch.of(action) else { return String(describing: action) }
    let actions = batch.flattened().actions
    let noun = actions.count == 1 ? "action" : "actions"
    let list = actions.map { String(describing: $0) }.joined(separator: ", ")
    return "ActionBatch of \(actions.count) \(noun) [\(list)]"
}

/// Writes `line` and a newline to standard error: the ``Middleware/logger(label:write:)`` default,
/// and how the store reports what it cannot throw, such as a dispatch lock never released.
@Sendable func writeLineToStandardError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
