/// The error of a history move that could not be made; posted with
/// ``Foundation/NSNotification/Name/dispatchDidFail``.
public struct HistoryError: Error, Sendable, CustomStringConvertible, Equatable {
    /// Why the move could not be made.
    public enum Kind: Sendable, Equatable {
        /// ``HistoryAction/jump(to:)`` named a step the history does not have.
        case noSuchStep(Int)
    }

    /// Why the move could not be made.
    public let kind: Kind
    /// How many steps the history kept when the move was refused, like ``HistoryStatus/steps``.
    public let steps: Int

    init(_ kind: Kind, steps: Int) {
        self.kind = kind
        self.steps = steps
    }

    /// A sentence naming the move and the steps the history has.
    public var description: String {
        switch kind {
        case .noSuchStep(let step):
            return "the history has no step \(step); it keeps steps 0 to \(steps - 1)"
        }
    }
}
