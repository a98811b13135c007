extension ActionLog {
    /// The error thrown when an action log cannot be replayed: it names the line and what is wrong
    /// with it, and how many actions before it were replayed.
    ///
    /// ```swift
    /// do {
    ///     try log.replay(lines, into: store)
    /// } catch {
    ///     print(error)  // "Line 7: it is not an action record (not JSON); replay stopped there, ..."
    /// }
    /// ```
    public struct ReplayError: Error, Sendable, CustomStringConvertible, Equatable {
        /// What is wrong with the line.
        public enum Kind: Sendable, Equatable {
            /// The line is not JSON, or not a record of an action; `detail` says which.
            case malformed(detail: String)
            /// The line holds an action type, `name`, that the log does not know.
            case unknownType(name: String)
        }

        /// What is wrong with the line.
        public let kind: Kind
        /// The 1-based number of the line.
        public let line: Int
        /// How many actions before it were replayed.
        public let replayedActions: Int

        init(_ kind: Kind, line: Int, replayedActions: Int) {
            self.kind = kind
            self.line = line
            self.replayedActions = replayedActions
        }

        /// A sentence naming the line, what is wrong with it and how many actions were replayed, such
        /// as `Line 7: …; replay stopped there, after the 6 actions before it.`
        public var description: String {
            let what: String
            switch kind {
            case .malformed(let detail): what = "it is not an action record (\(detail))"
            case .unknownType(let name): what = "the action type \"\(name)\" is not registered with the log"
            }
            return
                "Line \(line): \(what); replay stopped there, after the \(replayedActions) actions before it."
        }
    }
}
