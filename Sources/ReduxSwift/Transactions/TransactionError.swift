import Dispatch
import Foundation

/// Why a transaction did not commit; no store changed.
public enum TransactionError: Error, CustomStringConvertible {
    /// A reducer threw. `storeIndex` counts the stores in the order the transaction first
    /// dispatched to them; `actions` are that store's actions.
    case rejected(storeIndex: Int, actions: ActionBatch, error: any Error)
    /// An action for the store at `storeIndex` (counted like for `rejected`) is the
    /// ``AsyncAction`` named `identifier`, at any depth of a batch. A transaction applies its
    /// actions at once and cannot wait for work, so nothing was dispatched; dispatch the async
    /// action to its store on its own.
    case asyncAction(storeIndex: Int, identifier: String)
    /// `commit()` was called from a reducer, a middleware or an `encode(to:)`, where a store could
    /// wait for the very thread that waits for it.
    case calledFromStoreCode

    /// One sentence saying what went wrong.
    public var description: String {
        switch self {
        case .rejected(let index, let actions, let error):
            let names = actions.actions.map(\.identifier).joined(separator: ", ")
            return "store \(index) of the transaction rejected [\(names)]: \(error); no store changed"
        case .asyncAction(let index, let identifier):
            return "store \(index) of the transaction was given the async action \"\(identifier)\", which a "
                + "transaction cannot run; nothing was dispatched, dispatch it to the store on its own"
        case .calledFromStoreCode:
            return "a transaction cannot be committed from a reducer, a middleware or an encode(to:)"
        }
    }
}
