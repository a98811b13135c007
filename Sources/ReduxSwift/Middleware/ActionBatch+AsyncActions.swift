extension ActionBatch {
    /// The first ``AsyncAction`` of the batch, at any depth.
    var firstAsyncAction: (any AsyncActionStarting)? {
        for action in actions {
            if let work = action as? any AsyncActionStarting { return work }
            if let nested = ActionBatch.of(action), let work = nested.firstAsyncAction { return work }
        }
        return nil
    }

    /// Whether the batch holds an ``AsyncAction``, at any depth.
    var containsAsyncAction: Bool { firstAsyncAction != nil }

    /// The batch without its async actions, nested batches kept as batches; appends the async
    /// actions taken out, in order, and counts the other actions, at any depth.
    func takingOutAsyncActions(
        into asyncActions: inout [any AsyncActionStarting], counting otherActions: inout Int
    ) -> ActionBatch {
        var rest: [any ActionProtocol] = []
        rest.reserveCapacity(actions.count)
        for action in actions {
            if let work = action as? any AsyncActionStarting {
                asyncActions.append(work)
            } else if let nested = ActionBatch.of(action) {
                rest.append(nested.takingOutAsyncActions(into: &asyncActions, counting: &otherActions))
            } else {
                otherActions += 1
                rest.append(action)
            }
        }
        return ActionBatch(rest)
    }
}
