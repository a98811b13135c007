/// Several actions reduced as one unit: in order, announced in one notification, and
/// rolled back together if any reducer throws.
///
/// Dispatch one with ``Store/dispatch(batch:)``:
///
/// ```swift
/// store.dispatch(batch: [TodoAction.add("Milk"), TodoAction.add("Eggs"), FilterAction.show(.active)])
/// ```
///
/// Every reducer sees each action of the batch in turn, as if they had been dispatched one by one
/// with nothing in between. A batch inside a batch is expanded the same way, at any depth, so
/// reducers never see an `ActionBatch`. If a reducer throws on any of them, the state is exactly
/// what it was before the batch, and ``Foundation/NSNotification/Name/dispatchDidFail`` reports
/// the batch and the error. Otherwise one ``Foundation/NSNotification/Name/stateDidChange`` lists
/// the batch as one action; its ``actions`` are the ones you dispatched. Actions that reducers
/// dispatch while the batch is reduced are handled once the whole batch commits, right after it.
///
/// An ``AsyncAction`` in a batch (at any depth) is run by the
/// ``Middleware/asyncActions(dependencies:)`` middleware like one dispatched on its own: the other
/// actions go on as the batch, without it, and the work starts once they have been handled, in
/// batch order. If the batch fails, its async actions end without running (``AsyncAction/finished()``
/// returns).
public struct ActionBatch: ActionProtocol {
    /// The actions, in the order they are reduced.
    public let actions: [any ActionProtocol]

    /// Creates a batch; dispatching it with ``Store/dispatch(_:)`` reduces it as one unit too.
    ///
    /// ```swift
    /// store.dispatch(ActionBatch([TodoAction.add("Milk"), TodoAction.add("Eggs")]))
    /// ```
    public init(_ actions: [any ActionProtocol]) {
        self.actions = actions
    }

    /// `"ActionBatch"`.
    public var identifier: String { "ActionBatch" }
}

extension ActionBatch {
    /// `action` as a batch, or `nil`: one comparison of type metadata before the cast, so that
    /// asking about an action that is not a batch costs next to nothing.
    @inline(__always)
    static func of(_ action: any ActionProtocol) -> ActionBatch? {
        guard ObjectIdentifier(type(of: action)) == ObjectIdentifier(ActionBatch.self) else { return nil }
        return action as? ActionBatch
    }
}

extension ActionBatch {
    /// The batch with its nested batches expanded in place, at any depth: the actions reducers
    /// see, in the order they see them, as one flat batch. Iterative, so that no depth of nesting
    /// can overflow the stack; `self` when nothing is nested.
    func flattened() -> ActionBatch {
        guard actions.contains(where: { ActionBatch.of($0) != nil }) else { return self }
        var flat: [any ActionProtocol] = []
        var pending: [IndexingIterator<[any ActionProtocol]>] = [actions.makeIterator()]
        while !pending.isEmpty {
            guard let next = pending[pending.count - 1].next() else {
                pending.removeLast()
                continue
            }
            if let inner = ActionBatch.of(next) {
                pending.append(inner.actions.makeIterator())
            } else {
                flat.append(next)
            }
        }
        return ActionBatch(flat)
    }
}
