/// The address of a store's live state with its type erased, as the non-generic pipeline hands it
/// to erased reducers, middleware calls and checkpoint operations.
///
/// Valid only inside the ``with(_:_:)`` call that produced it, and only as the `State` it was made
/// from. Debug builds check both at every use, so that a pointer read as the wrong type, or kept
/// past its scope (by a middleware call object that outlived its call, say), stops the program at
/// the misuse instead of corrupting memory. Release builds keep only the address.
struct StatePointer {
    private let address: UnsafeMutableRawPointer
    #if DEBUG
    private let stateType: ObjectIdentifier
    private let scope: Scope

    /// Whether the scope that produced a pointer is still running. Confined to the holder of the
    /// state, like the pointer.
    private final class Scope {
        var isLive = true
    }
    #endif

    /// Runs `body` with a pointer to `state`, valid until `body` returns.
    @inline(__always)
    static func with<State, Result>(_ state: inout State, _ body: (StatePointer) -> Result) -> Result {
        withUnsafeMutablePointer(to: &state) { pointer in
            #if DEBUG
            let scope = Scope()
            defer { scope.isLive = false }
            return body(
                StatePointer(
                    address: UnsafeMutableRawPointer(pointer), stateType: ObjectIdentifier(State.self),
                    scope: scope))
            #else
            return body(StatePointer(address: UnsafeMutableRawPointer(pointer)))
            #endif
        }
    }

    /// The state, typed.
    @inline(__always)
    func assuming<State>(_: State.Type) -> UnsafeMutablePointer<State> {
        #if DEBUG
        precondition(scope.isLive, "a store's state pointer was used after the scope that produced it ended")
        precondition(
            stateType == ObjectIdentifier(State.self), "a store's state pointer was used as \(State.self)")
        #endif
        return address.assumingMemoryBound(to: State.self)
    }
}
