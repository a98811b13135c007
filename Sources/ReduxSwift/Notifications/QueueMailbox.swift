/// The notifications waiting for one observer's queue, and whether a block to deliver them is
/// queued.
///
/// At most one block per observer waits in its queue. A store's change notification that arrives
/// while the last waiting one is a change notification of the same store merges into it: one
/// notification listing the actions of both, in order. Other notifications (failures, notifications
/// posted by hand) keep their place between them. So an observer slower than the store gets
/// one notification per call it makes, never a backlog of queued blocks, and still hears every
/// action exactly once.
final class QueueMailbox: Sendable {
    private enum Item {
        case single(StoreNotification)
        /// A change notification and the runs of the ones merged into it.
        case merged(StoreNotification, [ActionRun])
    }

    private struct Contents {
        var items: [Item] = []
        var isScheduled = false
    }

    private let contents = LockedValue(Contents())

    /// Adds `notification`; returns whether the caller must queue a block to deliver it.
    func add(_ notification: StoreNotification) -> Bool {
        let runs = notification.mergeableRuns
        return contents.withLock { contents in
            if let runs, case .merged(let first, var merged)? = contents.items.last,
                first.object === notification.object
            {
                contents.items.removeLast()
                merged.append(contentsOf: runs)
                contents.items.append(.merged(first, merged))
            } else if runs != nil {
                contents.items.append(.merged(notification, []))
            } else {
                contents.items.append(.single(notification))
            }
            defer { contents.isScheduled = true }
            return !contents.isScheduled
        }
    }

    /// Takes the waiting notifications, merged; the next ``add(_:)`` queues a new block.
    func takeAll() -> [StoreNotification] {
        let items = contents.withLock { contents in
            defer { contents = Contents() }
            return contents.items
        }
        return items.map { item in
            switch item {
            case .single(let notification): notification
            case .merged(let first, let runs): runs.isEmpty ? first : first.merging(runs)
            }
        }
    }

    func removeAll() {
        contents.withLock { $0.items.removeAll() }
    }
}
