extension DispatchLock {
    /// The error of a dispatch lock used wrongly: released twice, or freed without being released.
    ///
    /// ``DispatchLock/release()`` throws it for a second release; a lock freed while held is reported
    /// with ``Foundation/NSNotification/Name/dispatchDidFail``.
    public struct ReleaseError: Error, Sendable, CustomStringConvertible, Equatable {
        /// What went wrong with the lock.
        public enum Kind: Sendable, Equatable {
            /// ``DispatchLock/release()`` was called on a lock already released.
            case alreadyReleased
            /// The lock was freed without being released, after being taken at `file`:`line`; the
            /// store released it then.
            case abandoned(file: String, line: UInt)
        }

        /// What went wrong.
        public let kind: Kind
        /// The lock's ``DispatchLock/name``.
        public let name: String

        init(_ kind: Kind, name: String) {
            self.kind = kind
            self.name = name
        }

        /// A sentence naming the lock and what went wrong.
        public var description: String {
            switch kind {
            case .alreadyReleased:
                return "the dispatch lock \"\(name)\" was released twice"
            case .abandoned(let file, let line):
                return "the dispatch lock \"\(name)\" taken at \(file):\(line) was never released; "
                    + "the store released it when the lock was freed"
            }
        }
    }
}
