extension StoreNotification {
    /// The actions a store notification covers, in the order they were reduced.
    ///
    /// A random-access collection that reads the store's own queue storage instead of copying each
    /// action, so announcing a burst of a million actions costs nothing per action. Use it like an
    /// array, or make one with `Array(notification.actions)`.
    ///
    /// ```swift
    /// store.observeChanges { notification in
    ///     for action in notification.actions where action is TodoAction {
    ///         print("reduced", action.identifier)
    ///     }
    /// }
    /// ```
    public struct ActionList: RandomAccessCollection, Sendable {
        private let storage: Storage

        /// A list of the given actions.
        ///
        /// ```swift
        /// let list = ActionList([TodoAction.add("Milk")])
        /// ```
        public init(_ actions: [any ActionProtocol] = []) {
            storage = Storage(runs: [ActionRun(entries: actions.map { .action($0) }, range: actions.indices)])
        }

        init(runs: [ActionRun]) {
            storage = Storage(runs: runs)
        }

        /// The batches the actions come from, in order.
        var runs: [ActionRun] { storage.runs }

        /// The position of the first action.
        public var startIndex: Int { 0 }

        /// The position after the last action.
        public var endIndex: Int { storage.runEnds.last ?? 0 }

        /// The action at `position`.
        ///
        /// - Complexity: O(log r), where r is the number of reduction passes the notification covers.
        public subscript(position: Int) -> any ActionProtocol {
            precondition(indices.contains(position), "ActionList index \(position) out of range \(indices)")
            let run = storage.runIndex(containing: position)
            let start = run == 0 ? 0 : storage.runEnds[run - 1]
            let entries = storage.runs[run]
            return entries.entries[entries.range.lowerBound + position - start].announcedAction
        }

        /// `@unchecked Sendable`: the runs refer to batches that the store never changes after taking
        /// them from its queue, and the list only hands out their actions and batches, which are
        /// `Sendable`; the registrations those batches may also hold are never touched here.
        private final class Storage: @unchecked Sendable {
            let runs: [ActionRun]
            /// `runEnds[i]` is the number of actions in runs `0...i`.
            let runEnds: [Int]

            init(runs: [ActionRun]) {
                self.runs = runs
                var total = 0
                runEnds = runs.map { run in
                    total += run.range.count
                    return total
                }
            }

            func runIndex(containing position: Int) -> Int {
                var low = 0
                var high = runEnds.count - 1
                while low < high {
                    let middle = (low + high) / 2
                    if runEnds[middle] <= position { low = middle + 1 } else { high = middle }
                }
                return low
            }
        }
    }
}
