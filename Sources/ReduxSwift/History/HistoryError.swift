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
            return "the history has no step \(step); \(keptSteps)"
        }
    }

    /// The steps that can be jumped to, in words. A history always keeps step 0; an error made by
    /// hand may still name none.
    private var keptSteps: String {
        switch steps {
        case ...0: return "it is empty until an action is dispatched"
        case 1: return "it keeps only step 0"
        default: return "it keeps steps 0 to \(steps - 1)"
        }
    }
}
