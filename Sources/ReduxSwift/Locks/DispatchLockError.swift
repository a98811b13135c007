import Foundation

/// A dispatch lock used wrongly.
public enum DispatchLockError: Error, Equatable, CustomStringConvertible {
    /// ``DispatchLock/release()`` was called on a lock already released.
    case alreadyReleased(name: String)
    /// The lock was freed without being released; the store released it then.
    case abandoned(name: String, file: String, line: UInt)

    /// One sentence saying what went wrong.
    public var description: String {
        switch self {
        case .alreadyReleased(let name):
            return "the dispatch lock \"\(name)\" was released twice"
        case .abandoned(let name, let file, let line):
            return "the dispatch lock \"\(name)\" taken at \(file):\(line) was never released; "
                + "the store released it when the lock was freed"
        }
    }
}
