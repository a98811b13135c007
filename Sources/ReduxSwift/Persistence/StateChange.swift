/// One value of a state that changed, found by comparing the JSON snapshots before and after.
///
/// A set, and a dictionary whose keys are not strings or integers (`JSONEncoder` writes it as an
/// array of keys and values in hash order), is compared as unordered: a mere change of order is no
/// change. A set's other changes are one change of the whole set. Such a dictionary's values are
/// compared key by key where both hold the same keys, with the key in the path
/// (`"byID.3F2504E0-4F89-11D3-9A0C-0305E82C3301.done"`); where the keys differ, it is one change of
/// the whole dictionary.
///
/// The archive uses it to name what a load would lose, and `TestStore` to show how two states
/// differ.
package struct StateChange: Sendable, Hashable, CustomStringConvertible {
    /// Where the value is, with `.` between keys and array indices: `"todos.3.done"`.
    ///
    /// A `.` or `\` inside a key is preceded by a `\`, so the key `"1.5"` of a dictionary
    /// `prices` is `#"prices.1\.5"#`, not `prices.1.5`; ``pathComponents`` undoes it, and
    /// ``path(_:)`` builds a path from keys. The root is `""`.
    package let path: String
    /// The value before, or `nil` where there was none.
    package let oldValue: JSONValue?
    /// The value after, or `nil` where there is none now.
    package let newValue: JSONValue?
    /// The positions in ``pathComponents`` that are keys of a dictionary archived as `[key, value,
    /// …]`, standing for the value held under that key.
    let pairKeys: Set<Int>

    /// Creates a change.
    ///
    /// ```swift
    /// let change = StateChange(path: "todos.0.done", oldValue: .bool(false), newValue: .bool(true))
    /// ```
    init(path: String, oldValue: JSONValue?, newValue: JSONValue?, pairKeys: Set<Int> = []) {
        self.path = path
        self.oldValue = oldValue
        self.newValue = newValue
        self.pairKeys = pairKeys
    }

    /// The keys and array indices of ``path``, unescaped: `["prices", "1.5"]`.
    var pathComponents: [String] {
        StatePath.components(of: path)
    }

    /// Builds a path from keys and array indices, escaping `.` and `\` inside them, for
    /// ``JSONValue/subscript(path:)``.
    static func path(_ components: [String]) -> String {
        StatePath.path(components)
    }

    /// `path: old → new`, with `absent` for a missing value.
    package var description: String {
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
    package static func changes<Value: Encodable>(
        from old: Value, to new: Value, ignoringUnderscoredMembers: Bool = false
    ) throws(SnapshotError) -> [StateChange] {
        let encoder = SnapshotEncoder(choosesFloatStrings: false)
        func parse(_ value: Value) throws(SnapshotError) -> SnapshotTree {
            do {
                let encoded = try encoder.encodeMarkingUnordered(value)
                return try SnapshotTree(parsing: encoded.data, unordered: encoded.unordered)
            } catch {
                throw SnapshotError(.encodingFailed, stateType: Value.self, underlyingError: error)
            }
        }
        let after = try parse(new)
        let changes = StateDiff.changes(
            from: try parse(old), to: after, ignoringUnderscored: ignoringUnderscoredMembers,
            order: (Value.self as? any Decodable.Type).map { StateDiff.OrderProbe(after.value, as: $0) })
        return changes.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    }
}

/// Compares two snapshots, value by value.
enum StateDiff {
    /// Every leaf that differs: values of different kinds, or scalars that differ. Objects and arrays
    /// are compared member by member, except unordered arrays: sets are compared whole, as
    /// unordered, and dictionaries written as `[key, value, …]` value by value under the same key
    /// (whole where their keys differ). Members whose names start with `_` are ignored.
    ///
    /// An array whose encoding marked no order may still hold none: a set that a wrapper's
    /// `encode(to:)` writes by calling the set's own. When `order` is given, two arrays that hold the
    /// same elements in another order are compared as `order` finds their type treats them.
    static func changes(
        from old: SnapshotTree, to new: SnapshotTree, ignoringUnderscored: Bool = true,
        order: OrderProbe? = nil
    ) -> [StateChange] {
        var comparison = Comparison(
            unordered: (old.unordered, new.unordered), ignoringUnderscored: ignoringUnderscored, order: order)
        comparison.compare(old.value, new.value, path: "", place: "")
        return comparison.changes
    }

    /// The changes between two plain JSON values, with no unordered arrays.
    static func changes(from old: JSONValue, to new: JSONValue, ignoringUnderscored: Bool = true)
        -> [StateChange]
    {
        changes(from: SnapshotTree(old), to: SnapshotTree(new), ignoringUnderscored: ignoringUnderscored)
    }

    private struct Comparison {
        let unordered: (old: [String: Bool], new: [String: Bool])
        let ignoringUnderscored: Bool
        let order: OrderProbe?
        var changes: [StateChange] = []

        /// Adds the changes from `old` to `new`, found at `path`; `place` is the path of `new` in
        /// its snapshot, where its unordered arrays are marked, and `pairKeys` the positions in `path`
        /// that are keys of pairs.
        mutating func compare(
            _ old: JSONValue?, _ new: JSONValue?, path: String, place: String, pairKeys: Set<Int> = []
        ) {
            func change(_ old: JSONValue?, _ new: JSONValue?) -> StateChange {
                StateChange(path: path, oldValue: old, newValue: new, pairKeys: pairKeys)
            }
            switch (old, new) {
            case (.object(let before)?, .object(let after)?):
                for (key, value) in after where !isIgnored(key) {
                    compare(
                        before[key], value, path: StatePath.appending(key, to: path),
                        place: StatePath.appending(key, to: place), pairKeys: pairKeys)
                }
                for (key, value) in before where after[key] == nil && !isIgnored(key) {
                    changes.append(
                        StateChange(
                            path: StatePath.appending(key, to: path), oldValue: value, newValue: nil,
                            pairKeys: pairKeys))
                }
            case (.array(let before)?, .array(let after)?):
                if let isPairs = isUnordered(place) {
                    guard !StateDiff.sameUnordered(before, after, isPairs: isPairs),
                        canonical(.array(before), path: place) != canonical(.array(after), path: place)
                    else { return }
                    if isPairs, let matched = pairs(before, after, place: place) {
                        let depth = StatePath.components(of: path).count
                        for (key, old, new) in matched {
                            compare(
                                before[old], after[new], path: StatePath.appending(key, to: path),
                                place: StatePath.appending(String(new), to: place),
                                pairKeys: pairKeys.union([depth]))
                        }
                    } else {
                        changes.append(change(old, new))
                    }
                    return
                }
                if let order, before != after, StateDiff.sameUnordered(before, after, isPairs: false),
                    let isPairs = order.isUnordered(at: place),
                    StateDiff.sameUnordered(before, after, isPairs: isPairs)
                {
                    return
                }
                for index in 0..<max(before.count, after.count) {
                    compare(
                        index < before.count ? before[index] : nil, index < after.count ? after[index] : nil,
                        path: StatePath.appending(String(index), to: path),
                        place: StatePath.appending(String(index), to: place), pairKeys: pairKeys)
                }
            default:
                if old != new { changes.append(change(old, new)) }
            }
        }

        /// The values of two dictionaries archived as `[key, value, …]` at `place`, matched by their
        /// keys: each key as a path component (a string key as it is, any other as its JSON text),
        /// and the positions of its value in `before` and in `after`; `nil` unless both hold the same
        /// keys, each once.
        private func pairs(_ before: [JSONValue], _ after: [JSONValue], place: String)
            -> [(key: String, old: Int, new: Int)]?
        {
            guard before.count == after.count, after.count.isMultiple(of: 2) else { return nil }
            func positions(_ elements: [JSONValue]) -> [JSONValue: Int]? {
                var positions: [JSONValue: Int] = [:]
                for index in stride(from: 0, to: elements.count, by: 2) {
                    let key = canonical(elements[index], path: StatePath.appending(String(index), to: place))
                    guard positions.updateValue(index + 1, forKey: key) == nil else { return nil }
                }
                return positions
            }
            guard let old = positions(before), let new = positions(after), old.count == new.count else {
                return nil
            }
            var matched: [(key: String, old: Int, new: Int)] = []
            for (key, position) in new {
                guard let before = old[key] else { return nil }
                let text: String
                if case .string(let string) = key { text = string } else { text = key.description }
                matched.append((text, before, position))
            }
            return matched
        }

        /// Whether a member is left out: a name starting with `_`, when underscored members are
        /// ignored, except the `_0`, `_1`, … that synthesized `Codable` gives an enum case's
        /// unlabeled payloads, which are the payload, not an internal property.
        private func isIgnored(_ key: String) -> Bool {
            ignoringUnderscored && StateDiff.isUnderscoredMember(key)
        }

        /// `value`, at `path`, with the elements of every unordered array in it (itself too) in one
        /// order: by their JSON text, and a dictionary's pairs by their keys'. So two values that
        /// differ only in the order of unordered arrays inside unordered arrays (a `[UUID: [UUID:
        /// Int]]`, whose inner dictionaries are values of the outer one's pairs) are equal.
        private func canonical(_ value: JSONValue, path: String) -> JSONValue {
            switch value {
            case .object(let members):
                var canonical: [String: JSONValue] = [:]
                for (key, member) in members {
                    canonical[key] = self.canonical(member, path: StatePath.appending(key, to: path))
                }
                return .object(canonical)
            case .array(let elements):
                let children = elements.enumerated().map {
                    canonical($0.element, path: StatePath.appending(String($0.offset), to: path))
                }
                switch isUnordered(path) {
                case nil:
                    return .array(children)
                case false?:
                    return .array(children.sorted { $0.description < $1.description })
                case true?:
                    let pairs = stride(from: 0, to: children.count - 1, by: 2).map {
                        (children[$0], children[$0 + 1])
                    }
                    return .array(
                        pairs.sorted { $0.0.description < $1.0.description }.flatMap { [$0.0, $0.1] })
                }
            default:
                return value
            }
        }

        /// Whether the arrays at `path` are unordered, and whether they alternate keys and values.
        private func isUnordered(_ path: String) -> Bool? {
            if unordered.new.isEmpty && unordered.old.isEmpty { return nil }
            return unordered.new[path] ?? unordered.old[path]
        }
    }

    /// Whether `key` names an internal member that key-path observers leave out: it starts with `_`
    /// and is not an unlabeled enum payload (`_` and digits).
    static func isUnderscoredMember(_ key: String) -> Bool {
        guard key.utf8.first == UInt8(ascii: "_") else { return false }
        let rest = key.utf8.dropFirst()
        return rest.isEmpty || !rest.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// Whether two unordered arrays hold the same elements (as multisets), or the same keys with
    /// the same values when they alternate keys and values.
    static func sameUnordered(_ before: [JSONValue], _ after: [JSONValue], isPairs: Bool) -> Bool {
        if before == after { return true }
        guard before.count == after.count else { return false }
        if isPairs {
            guard before.count.isMultiple(of: 2) else { return false }
            func entries(_ elements: [JSONValue]) -> [JSONValue: JSONValue]? {
                var entries: [JSONValue: JSONValue] = [:]
                for index in stride(from: 0, to: elements.count, by: 2) {
                    guard entries.updateValue(elements[index + 1], forKey: elements[index]) == nil else {
                        return nil
                    }
                }
                return entries
            }
            guard let old = entries(before), let new = entries(after) else { return false }
            return old == new
        }
        var counts: [JSONValue: Int] = [:]
        for element in before { counts[element, default: 0] += 1 }
        for element in after {
            guard let count = counts[element], count > 0 else { return false }
            counts[element] = count - 1
        }
        return true
    }
}

extension StateDiff {
    /// Finds whether an array of a state holds its elements in no order, by asking the state's own
    /// types: the state is decoded from its JSON with the array reversed, and encoded again.
    ///
    /// A type that keeps order (an `Array`) gives the reversed array back; a `Set` gives the order it
    /// keeps its elements in, whatever the order it read them in, and a dictionary written as
    /// `[key, value, …]` does the same for its pairs.
    final class OrderProbe {
        private let state: JSONValue
        private let roundTrip: (JSONValue) -> JSONValue?
        private lazy var original = roundTrip(state)

        /// A probe of `state`, the JSON of a value of `type`.
        init(_ state: JSONValue, as type: any Decodable.Type) {
            self.state = state
            let (strict, lenient) = (
                SnapshotCoder.makeDecoder(floatStrings: nil), SnapshotCoder.makeDecoder()
            )
            func roundTrip<T: Decodable>(_: T.Type) -> (JSONValue) -> JSONValue? {
                { json in
                    guard
                        let value = try? SnapshotCoder.decode(
                            T.self, from: json.data, strict: strict, lenient: lenient)
                            as? any Encodable,
                        let data = try? SnapshotEncoder(choosesFloatStrings: false).encode(value)
                    else { return nil }
                    return try? JSONValue(parsing: data)
                }
            }
            self.roundTrip = roundTrip(type)
        }

        /// `false` when the array at `path` holds its elements in no order, `true` when it holds
        /// key-value pairs in no order, `nil` when its order counts or the probe cannot tell.
        ///
        /// A dictionary whose keys and values read as each other's type (`[Double: Double]`) also
        /// reads its elements reversed, and is taken for a set; the two then differ only when the
        /// same values moved between keys.
        func isUnordered(at path: String) -> Bool? {
            guard case .array(let elements)? = state[path: path], elements.count > 1,
                let kept = original?[path: path]
            else { return nil }
            /// Whether the type reads the array with its runs of `length` elements in another order
            /// and does not give them back in that order.
            func ignoresOrder(ofRunsOf length: Int) -> Bool {
                let runs = stride(from: 0, to: elements.count, by: length).map { elements[$0..<$0 + length] }
                // Reversed, or rotated when reversing changes nothing; a change to the order, as
                // long as the runs are not all alike.
                var moved = Array(runs.reversed().joined())
                if moved == elements { moved = Array(runs.dropFirst().joined() + runs[0]) }
                let components = StatePath.components(of: path)[...]
                guard moved != elements,
                    case .array(let back)? = roundTrip(state.replacing(at: components, with: .array(moved)))?[
                        path: path],
                    StateDiff.sameUnordered(back, moved, isPairs: length == 2)
                else { return false }
                // A type that keeps order gives back both arrays as they were.
                return kept != .array(elements) || back != moved
            }
            if ignoresOrder(ofRunsOf: 1) { return false }
            return elements.count.isMultiple(of: 2) && ignoresOrder(ofRunsOf: 2) ? true : nil
        }
    }
}

extension JSONValue {
    /// This value with `replacement` at the path of `components`, where there is a value.
    func replacing(at components: ArraySlice<String>, with replacement: JSONValue) -> JSONValue {
        guard let first = components.first else { return replacement }
        switch self {
        case .object(var members):
            guard let member = members[first] else { return self }
            members[first] = member.replacing(at: components.dropFirst(), with: replacement)
            return .object(members)
        case .array(var elements):
            guard let index = Int(first), elements.indices.contains(index) else { return self }
            elements[index] = elements[index].replacing(at: components.dropFirst(), with: replacement)
            return .array(elements)
        default:
            return self
        }
    }
}
