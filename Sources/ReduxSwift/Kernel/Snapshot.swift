import Foundation

/// One encoded version of a store's state, shared by every reader of that version.
///
/// A class, so that handing one to a reader, or naming one in a transition's effects, moves one
/// reference rather than the whole value.
final class Snapshot: Sendable {
    /// The store version it encodes; versions count committed state changes.
    let version: UInt64
    /// The JSON, or why the state could not be encoded.
    let result: Result<Data, SnapshotError>
    /// Whether decoding it recurses deeper than a caller's thread may (see ``DeepStack``).
    let needsDeepStack: Bool
    /// The variant of strings the JSON writes a `Double` or `Float` as, if it writes one (see
    /// ``EncodedSnapshot/floatStrings``).
    let floatStrings: Int?

    init(
        version: UInt64, result: Result<Data, SnapshotError>, needsDeepStack: Bool = false,
        floatStrings: Int? = nil
    ) {
        self.version = version
        self.result = result
        self.needsDeepStack = needsDeepStack
        self.floatStrings = floatStrings
    }
}
