import Foundation

/// Why an action log could not be replayed; names the line.
public struct ActionLogError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What is wrong with the line.
    public enum Reason: Error, Sendable, Equatable {
        /// The line is not JSON, or not a record of an action.
        case malformed(String)
        /// The line holds an action type the codec does not know.
        case unknownType(String)
    }

    /// The 1-based line number.
    public let line: Int
    /// What is wrong with it.
    public let reason: Reason
    /// How many actions before it were replayed.
    public let replayedActions: Int

    /// `Line 7: …; the 6 actions before it were replayed.`
    public var description: String {
        let what: String
        switch reason {
        case .malformed(let detail): what = "it is not an action record (\(detail))"
        case .unknownType(let name): what = "the action type \"\(name)\" is not registered with the codec"
        }
        return "Line \(line): \(what); replay stopped there, after the \(replayedActions) actions before it."
    }
}
