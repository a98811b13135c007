import Foundation

extension Store {
    /// Returns a deep copy of the state that reflects every action dispatched before this call.
    ///
    /// The copy is decoded from a JSON snapshot on the calling thread, so it shares no reference
    /// with the store or with any other copy, and you may change it freely. Each state version is
    /// encoded at most once, however many readers ask; later readers of the same version only
    /// decode.
    ///
    /// ```swift
    /// store.dispatch(CounterAction.increment)
    /// let state = store.currentState()  // includes the increment
    /// ```
    ///
    /// "Dispatched before" means: every `dispatch` that returned before this call began, on this
    /// thread or on one that happened-before it. When those actions are still queued, the call
    /// waits until they are reduced. Inside a reducer (of any store) or a state's `encode(to:)`, it
    /// never waits: it returns the newest snapshot the store has already published, a committed
    /// state from before the current action (see <doc:ThreadingModel>).
    ///
    /// If the state cannot round-trip through JSON (a broken `Codable` conformance, or nesting
    /// deeper than JSON can be read back, as a cyclic object graph does), nothing in the store is
    /// lost, and this method returns the newest state that did round-trip: the initial state at
    /// least, which the initializer encoded, even when nothing was read before. If not even that
    /// one round-trips, it stops the program with a message naming the type and the coding path;
    /// use ``snapshot()`` to handle the error instead.
    public func currentState() -> State {
        let snapshot = kernel.latestSnapshot()
        switch decode(snapshot) {
        case .success(let state):
            return state
        case .failure(let error):
            if let state = newestRoundTrippedState(otherThan: snapshot.version) { return state }
            preconditionFailure(
                "\(error). currentState() returns the newest state that round-trips through JSON, "
                    + "and this store has none; use snapshot() to handle the error.")
        }
    }

    /// The newest state that round-trips, other than `version`: the newest that encoded if it
    /// decodes, else the newest that decoded, else the initial state when no reader has decoded any.
    private func newestRoundTrippedState(otherThan version: UInt64) -> State? {
        for candidate in kernel.fallbacks {
            guard candidate.version != version else { continue }
            if let state = try? decode(candidate).get() { return state }
        }
        return nil
    }

    /// Returns a deep copy of the state like ``currentState()``, or throws if it cannot
    /// round-trip through JSON.
    ///
    /// ```swift
    /// do {
    ///     let state = try store.snapshot()
    /// } catch {
    ///     print(error)  // "Cannot encode AppState at todos[3].due: ..."
    /// }
    /// ```
    ///
    /// - Throws: ``SnapshotError`` naming the state type, the step that failed and the coding path.
    public func snapshot() throws(SnapshotError) -> State {
        try decode(kernel.latestSnapshot()).get()
    }

    func decode(_ snapshot: Snapshot) -> Result<State, SnapshotError> {
        switch snapshot.result {
        case .failure(let error):
            return .failure(error)
        case .success(let data):
            let decoder = SnapshotCoder.decoder(
                floatStrings: snapshot.floatStrings, strict: strictDecoder, lenient: decoder)
            let decode = { (data: Data) throws -> State in
                snapshot.needsDeepStack
                    ? try DeepStack.run { try decoder.decode(State.self, from: data) }
                    : try decoder.decode(State.self, from: data)
            }
            do {
                let state = try decode(data)
                // What `JSONDecoder` built on the way, in the arena of the reading thread.
                if data.count >= MemoryRelease.threshold { MemoryRelease.returnFreedMemory() }
                kernel.recordRoundTrip(snapshot)
                return .success(state)
            } catch {
                // A number its type cannot hold again (`JSONDecoder` names neither it nor where).
                let explained = UnfitNumber.explain(error, in: data, under: []) { _ = try decode($0) }
                let failure = SnapshotError(
                    .decodingFailed, stateType: State.self, underlyingError: explained)
                kernel.snapshotDidNotDecode(snapshot, failure)
                return .failure(failure)
            }
        }
    }
}
