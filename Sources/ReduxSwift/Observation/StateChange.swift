/// One value of a state that changed, found by comparing the JSON snapshots before and after.
///
/// ```swift
/// let token = store.observeChanges(at: ["todos", "filter"]) { changes in
///     for change in changes {
///         print(change.path, change.oldValue ?? "absent", "→", change.newValue ?? "absent")
///         // todos.3.done false → true
///     }
/// }
/// ```
public struct StateChange: Sendable, Hashable, CustomStringConvertible {
    /// Where the value is, with `.` between keys and array indices: `"todos.3.done"`.
    public let path: String
    /// The value before, or `nil` where there was none.
    public let oldValue: JSONValue?
    /// The value after, or `nil` where there is none now.
    public let newValue: JSONValue?

    /// Creates a change.
    public init(path: String, oldValue: JSONValue?, newValue: JSONValue?) {
        self.path = path
        self.oldValue = oldValue
        self.newValue = newValue
    }

    /// `path: old → new`, with `absent` for a missing value.
    public var description: String {
        "\(path): \(oldValue?.description ?? "absent") → \(newValue?.description ?? "absent")"
    }

    /// The values that differ between two states, compared as the JSON of their snapshots, sorted
    /// by path.
    ///
    /// ```swift
    /// let changes = try StateChange.changes(from: before, to: after)
    /// // [todos.3.done: false → true]
    /// ```
    ///
    /// - Parameters:
    ///   - old: The state before.
    ///   - new: The state after.
    ///   - ignoringUnderscoredMembers: Whether members whose names start with `_` are left out, as
    ///     key-path observers leave them out; `false` compares everything.
    /// - Throws: ``SnapshotError`` if either state cannot be encoded.
    public static func changes<Value: Encodable>(
        from old: Value, to new: Value, ignoringUnderscoredMembers: Bool = false
    ) throws(SnapshotError) -> [StateChange] {
        let encoder = SnapshotCoder.makeEncoder()
        func parse(_ value: Value) throws(SnapshotError) -> JSONValue {
            do {
                return try JSONValue(parsing: encoder.encode(value))
            } catch {
                throw SnapshotError(.encoding, stateType: Value.self, underlyingError: error)
            }
        }
        let changes = StateDiff.changes(
            from: try parse(old), to: try parse(new), ignoringUnderscored: ignoringUnderscoredMembers)
        return changes.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }
}

/// Compares two snapshots, value by value.
enum StateDiff {
    /// Every leaf that differs: values of different kinds, or scalars that differ. Objects and arrays
    /// are compared member by member; members whose names start with `_` are ignored.
    static func changes(from old: JSONValue, to new: JSONValue, ignoringUnderscored: Bool = true)
        -> [StateChange]
    {
        var changes: [StateChange] = []
        compare(old, new, path: "", ignoringUnderscored: ignoringUnderscored, into: &changes)
        return changes
    }

    private static func compare(
        _ old: JSONValue?, _ new: JSONValue?, path: String, ignoringUnderscored: Bool,
        into changes: inout [StateChange]
    ) {
        switch (old, new) {
        case (.object(let before)?, .object(let after)?):
            for (key, value) in after where !(ignoringUnderscored && key.hasPrefix("_")) {
                compare(
                    before[key], value, path: join(path, key), ignoringUnderscored: ignoringUnderscored,
                    into: &changes)
            }
            for (key, value) in before where after[key] == nil && !(ignoringUnderscored && key.hasPrefix("_"))
            {
                changes.append(StateChange(path: join(path, key), oldValue: value, newValue: nil))
            }
        case (.array(let before)?, .array(let after)?):
            for index in 0..<max(before.count, after.count) {
                compare(
                    index < before.count ? before[index] : nil, index < after.count ? after[index] : nil,
                    path: join(path, String(index)), ignoringUnderscored: ignoringUnderscored, into: &changes)
            }
        default:
            if old != new { changes.append(StateChange(path: path, oldValue: old, newValue: new)) }
        }
    }

    private static func join(_ path: String, _ component: String) -> String {
        path.isEmpty ? component : path + "." + component
    }

    /// The changes that concern any of `paths` (a path, or a prefix of paths); all when `paths` is
    /// empty. A change above a path (`todos` replaced while `todos.3.done` is watched) is narrowed
    /// to that path, and kept only if the value there differs.
    static func filter(
        _ changes: [StateChange], paths: [String], old: JSONValue, new: JSONValue
    ) -> [StateChange] {
        guard !paths.isEmpty else { return changes }
        var kept: [StateChange] = []
        var narrowed: Set<String> = []
        for change in changes {
            for path in paths {
                if change.path == path || path.isEmpty || change.path.hasPrefix(path + ".") {
                    kept.append(change)
                    break
                }
                if change.path.isEmpty || path.hasPrefix(change.path + "."), narrowed.insert(path).inserted {
                    let before = old[path: path]
                    let after = new[path: path]
                    if before != after {
                        kept.append(StateChange(path: path, oldValue: before, newValue: after))
                    }
                }
            }
        }
        return kept
    }
}
