import Foundation

/// A history move that could not be made; posted with ``Foundation/NSNotification/Name/dispatchDidFail``.
public enum HistoryError: Error, Equatable, CustomStringConvertible {
    /// ``HistoryAction/jump(to:)`` named a step the history does not have.
    case noSuchStep(Int, steps: Int)

    /// One sentence saying what went wrong.
    public var description: String {
        switch self {
        case .noSuchStep(let step, let steps):
            return "the history has no step \(step); it keeps steps 0 to \(steps - 1)"
        }
    }
}
