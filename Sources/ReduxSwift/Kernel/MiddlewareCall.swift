/// One middleware with the state type erased, like ``ErasedReducer``: it receives the action and
/// the call it may use until it returns.
///
/// Not `@Sendable`, for the same reason as ``ErasedReducer``: it captures only a `Sendable`
/// closure and crosses threads only inside the store's mutex-guarded queue.
typealias ErasedMiddleware = (any ActionProtocol, MiddlewareCall) throws -> Void

/// What one middleware may do while it handles one action: read the live state, pass actions on,
/// and learn how they ended. Valid only until the middleware returns.
///
/// Confined to the holder of the store's live state, like the state it points to; debug builds
/// check that every use comes from that holder's reducing thread, during the call.
final class MiddlewareCall {
    /// The live state during a call; `nil` between calls, so that no pointer outlives its scope.
    private var state: StatePointer?
    /// The store's kernel, for dispatches and for passing actions on later.
    ///
    /// Unowned: the kernel keeps its calls (in its pipeline's `calls`), so a strong reference made
    /// a cycle that kept the kernel, the state and the middleware of a store whose middleware ever
    /// ran alive after the store was freed. Every use is during a call, while the kernel reduces.
    unowned let kernel: StoreKernel
    /// The slot of the middleware the call is for: actions it passes on later continue after it.
    private(set) var slot = 0
    private var passOn: ((any ActionProtocol) -> DispatchOutcome)?
    /// The action the middleware handles during the call.
    private(set) var action: (any ActionProtocol)?
    /// How the actions passed on so far ended, combined.
    private(set) var outcome = DispatchOutcome.dropped

    init(kernel: StoreKernel) {
        self.kernel = kernel
    }

    /// Starts a call of the middleware in `slot` on `state`; calls of one position reuse one object
    /// when nothing kept it.
    func begin(
        slot: Int, action: any ActionProtocol, state: StatePointer,
        passOn: @escaping (any ActionProtocol) -> DispatchOutcome
    ) {
        self.slot = slot
        self.action = action
        self.state = state
        self.passOn = passOn
        outcome = .dropped
    }

    /// Passes `action` to the rest of the chain and the reducers, now.
    func next(_ action: any ActionProtocol) -> DispatchOutcome {
        guard let passOn else {
            preconditionFailure(
                "Middleware.Context.next(_:) called after the middleware returned; use nextLater() to pass "
                    + "an action on later")
        }
        let result = passOn(action)
        outcome = outcome.combined(with: result)
        return result
    }

    /// Records that the middleware started asynchronous work for the action, instead of passing
    /// it on: the middleware before it learns ``DispatchOutcome/started``.
    func markStarted() {
        outcome = outcome.combined(with: .started)
    }

    /// The live state, read-only by convention; stops the program when the call has ended.
    func state<State>(as _: State.Type) -> UnsafeMutablePointer<State> {
        checkActive()
        return state!.assuming(State.self)
    }

    /// Makes sure the call is still in progress, on the thread that holds the state.
    func checkActive() {
        precondition(passOn != nil, "a Middleware.Context was used after its middleware returned")
        #if DEBUG
        precondition(
            StoreCodeScope.current?.reducingKernel === kernel,
            "a Middleware.Context was used on a thread that does not own the store's state")
        #endif
    }

    /// Ends the call: nothing may use it afterwards.
    func end() {
        passOn = nil
        action = nil
        state = nil
    }
}

extension DispatchOutcome {
    /// The outcome of a middleware that passed on several actions: the first failure, otherwise
    /// committed if any action was reduced, otherwise started if async work started, otherwise
    /// dropped.
    func combined(with other: DispatchOutcome) -> DispatchOutcome {
        switch (self, other) {
        case (.failed, _): return self
        case (_, .failed): return other
        case (.committed, _), (_, .committed): return .committed
        case (.started, _), (_, .started): return .started
        default: return .dropped
        }
    }
}
