/// A type that can be the state of a ``Store``.
///
/// The store hands out deep copies of its state by encoding it to JSON once per version and
/// decoding it for each reader, so a state only needs to be `Codable`; it need not be `Sendable`.
/// Prefer value types (structs, enums, arrays, dictionaries) all the way down: see
/// <doc:ThreadingModel> for what class instances inside a state mean for snapshots and rollback.
///
/// ```swift
/// struct AppState: StateProtocol {
///     var counter = 0
///     var todos: [Todo] = []
/// }
/// ```
///
/// The store encodes, decodes and reduces the state on its own threads, so a conformance is never
/// isolated to an actor: `SendableMetatype` keeps the conformance usable there even in a module
/// whose declarations are main-actor-isolated by default.
public protocol StateProtocol: Codable, SendableMetatype {}
