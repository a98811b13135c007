/// The error thrown when a ``StoreTransaction`` did not commit; then no store changed.
///
/// Stores are counted by `storeIndex` in the order the transaction first dispatched to them.
public struct TransactionError: Error, Sendable, CustomStringConvertible {
    /// Why the transaction did not commit.
    public enum Kind: Sendable {
        /// A reducer of the store at `storeIndex` threw `error`; `actions` are that store's
        /// actions.
        case rejected(storeIndex: Int, actions: ActionBatch, error: any Error)
        /// An action for the store at `storeIndex` is the ``AsyncAction`` named `identifier`, at
        /// any depth of a batch. A transaction applies its actions at once and cannot wait for
        /// work, so nothing was dispatched; dispatch the async action to its store on its own.
        case asyncAction(storeIndex: Int, identifier: String)
        /// `commit()` was called from a reducer, a middleware or an `encode(to:)`, where a store
        /// could wait for the very thread that waits for it.
        case calledFromStoreCode
    }

    /// Why the transaction did not commit.
    public let kind: Kind

    init(_ kind: Kind) {
        self.kind = kind
    }

    /// A sentence saying why the transaction did not commit.
    public var description: String {
        switch kind {
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
