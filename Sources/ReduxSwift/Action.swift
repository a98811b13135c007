/// A description of a state change, dispatched to a ``Store`` and handed to every reducer.
///
/// Actions carry no code. Most apps declare one enum per feature and get ``identifier`` for free:
///
/// ```swift
/// enum CounterAction: ActionProtocol {
///     case increment
///     case add(Int)
/// }
///
/// CounterAction.increment.identifier  // "CounterAction.increment"
/// CounterAction.add(2).identifier     // "CounterAction.add"
/// ```
///
/// Actions cross threads (they are queued by any thread and reduced on the store's own), so they
/// must be `Sendable`.
public protocol ActionProtocol: Sendable {
    /// A name for the kind of action, such as `"CounterAction.increment"`.
    ///
    /// The default for an enum is `"TypeName.caseName"`, without associated values; for other types
    /// it is `"TypeName"`. `TypeName` is the type's own name, without the types it is nested in, so
    /// two nested enums of one name (`CounterFeature.Action` and `TodoFeature.Action`) share
    /// identifiers: give such enums an `identifier` of their own. An enum that customizes
    /// `description` should implement this property too, because the default reads the case name
    /// from the value's description.
    var identifier: String { get }

    /// Extra information attached to the action; `nil` by default.
    var payload: (any Sendable)? { get }
}

extension ActionProtocol {
    /// The default identifier: `"TypeName.caseName"` for enums, `"TypeName"` for other types.
    ///
    /// Built by reflection the first time a type and case is read, from any thread, and looked up
    /// after that, so comparing it in a reducer costs about what matching the enum case costs.
    public var identifier: String {
        defaultIdentifier(of: self)
    }

    /// No payload.
    public var payload: (any Sendable)? { nil }
}

/// The default identifier of `action`, read by reflection: `"TypeName.caseName"` for an enum,
/// `"TypeName"` for other types. It costs microseconds, so `defaultIdentifier(of:)` calls it once
/// per type and case.
func reflectedIdentifier<Action: ActionProtocol>(of action: Action) -> String {
    let typeName = String(describing: Action.self)
    let mirror = Mirror(reflecting: action)
    guard mirror.displayStyle == .enum else { return typeName }
    // A case with associated values reflects as one child labelled with the case name.
    if let caseName = mirror.children.first?.label {
        return "\(typeName).\(caseName)"
    }
    let description = String(describing: action)
    let caseName = description.prefix { $0 != "(" }
    return "\(typeName).\(caseName)"
}

/// An action identified by a string, in the style of ReduxObjC's `RDXAction`.
///
/// ```swift
/// store.dispatch(Action("todos.add", payload: "Buy milk"))
/// ```
///
/// Reducers tell these actions apart by ``identifier`` and read ``payload`` with a cast:
///
/// ```swift
/// let addTodo: Reducer<AppState> = { state, action in
///     guard action.identifier == "todos.add", let title = action.payload as? String else { return }
///     state.todos.append(Todo(title: title))
/// }
/// ```
public struct Action: ActionProtocol {
    /// The action's name, such as `"todos.add"`.
    public let identifier: String
    /// Extra information attached to the action.
    public let payload: (any Sendable)?

    /// Creates an action with an identifier and an optional payload.
    ///
    /// ```swift
    /// store.dispatch(Action("todos.add", payload: "Buy milk"))
    /// ```
    /// - Parameters:
    ///   - identifier: The action's name, such as `"todos.add"`.
    ///   - payload: Extra information for the reducers; `nil` by default.
    public init(_ identifier: String, payload: (any Sendable)? = nil) {
        self.identifier = identifier
        self.payload = payload
    }
}

extension Action: CustomStringConvertible {
    /// The identifier, followed by the payload when there is one.
    public var description: String {
        guard let payload else { return "Action(\(identifier))" }
        return "Action(\(identifier), payload: \(payload))"
    }
}
