import Foundation

/// One-line migrations of the common changes: a member renamed, removed, added or converted, in
/// every object at a path.
///
/// The path names objects from the state down: `""` is the state itself, `"cart"` its member
/// `cart`, `"cart.lines[]"` every element of the array `cart.lines`, and `"orders[].lines[]"` every
/// line of every order. `[]` after a member stands for every element of an array, or every value of
/// a dictionary. A dictionary whose keys are neither strings nor integers is archived as an array
/// of keys and values: there `[values]` stands for its values alone and `[keys]` for its keys
/// alone (`"byKey[values]"`); on a dictionary archived as an object, `[values]` is every value and
/// `[keys]` finds no object. Where the path leads to nothing (a member that is absent, `null`, or
/// not an object), the migration does nothing.
///
/// ```swift
/// let archive = StateArchive<AppState>(
///     file: url,
///     schemaVersion: 2,
///     migrations: [
///         // Version 2 renamed each cart line's "title" to "name".
///         ArchiveMigration(from: 1, renaming: "title", to: "name", in: "cart.lines[]")
///     ])
/// ```
///
/// When a load needs a migration, its ``PersistenceError/Kind/needsMigration(path:detail:migration:)``
/// error shows the line to add, and ``PersistenceError/suggestedMigrations`` the lines for every
/// change the load found.
extension ArchiveMigration {
    /// Creates a migration that renames the member `old` to `new` in every object at `path`.
    ///
    /// ```swift
    /// ArchiveMigration(from: 1, renaming: "title", to: "name", in: "cart.lines[]")
    /// ```
    ///
    /// An object without `old` is left as it is; in one that has both, `old`'s value replaces `new`'s.
    ///
    /// - Precondition: `path` is well formed: names separated by `.`, each followed by any number
    ///   of `[]`, `[values]` or `[keys]`, with a `\` before each `.`, `[`, `]` or `\` inside a
    ///   name. The program stops otherwise.
    public init(from version: Int, renaming old: String, to new: String, in path: String = "") {
        self.init(
            from: version, at: MemberPath.parse(path),
            { object in
                if let value = object.removeValue(forKey: old) { object[new] = value }
            },
            edit: { object in
                if let value = object.removeValue(forKey: old) { object[new] = value }
            },
            reshape: { object in
                guard object[new] == nil, let value = object.removeValue(forKey: old) else { return }
                object[new] = value
            })
    }

    /// Creates a migration that removes the member `member` from every object at `path`.
    ///
    /// ```swift
    /// ArchiveMigration(from: 2, removing: "legacyFlag")
    /// ```
    ///
    /// - Precondition: `path` is well formed (see ``init(from:renaming:to:in:)``).
    public init(from version: Int, removing member: String, in path: String = "") {
        self.init(
            from: version, at: MemberPath.parse(path), { object in object[member] = nil },
            edit: { object in object[member] = nil }, reshape: { object in object[member] = nil })
    }

    /// Creates a migration that adds the member `member`, holding `value`, to every object at `path`
    /// that lacks it.
    ///
    /// ```swift
    /// ArchiveMigration(from: 3, adding: "currency", value: "EUR", in: "settings")
    /// ```
    ///
    /// `value` is written as ``ArchiveMigration`` describes: a `String`, a number, a `Bool`, an array
    /// or `[String: Any]` dictionary of them, or `NSNull()`.
    ///
    /// - Precondition: `path` is well formed (see ``init(from:renaming:to:in:)``).
    public init(from version: Int, adding member: String, value: any Sendable, in path: String = "") {
        // A value JSON cannot hold has no edit: the load converts the state to Foundation objects,
        // and the conversion back names the value's path.
        let json = try? JSONValue(foundationObject: value, at: member)
        var edit: (@Sendable (inout [String: JSONValue]) -> Void)?
        if let json {
            edit = { (object: inout [String: JSONValue]) in
                if object[member] == nil { object[member] = json }
            }
        }
        self.init(
            from: version, at: MemberPath.parse(path),
            { object in
                if object[member] == nil { object[member] = value }
            },
            edit: edit, reshape: edit)
    }

    /// Creates a migration that adds the member `member`, holding the value written as JSON in
    /// `json`, to every object at `path` that lacks it.
    ///
    /// ```swift
    /// ArchiveMigration(from: 1, adding: "tags", json: "[]", in: "expenses[]")
    /// ArchiveMigration(from: 1, adding: "limits", json: #"{"daily":50,"currency":"EUR"}"#)
    /// ```
    ///
    /// The JSON is the member's value as the state's own encoding writes it, which is how a
    /// ``PersistenceError/migrationProblems`` entry shows an array, an object or `null`. Each
    /// object gets its own copy.
    ///
    /// - Precondition: `json` is valid JSON, and `path` is well formed (see
    ///   ``init(from:renaming:to:in:)``). The program stops otherwise.
    public init(from version: Int, adding member: String, json: String, in path: String = "") {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: Data(json.utf8))
        } catch {
            preconditionFailure(
                "ArchiveMigration(from:adding:json:in:) got \(json), which is not JSON: \(error)")
        }
        self.init(
            from: version, at: MemberPath.parse(path),
            { object in
                guard object[member] == nil else { return }
                var numberTexts = NumberTexts()
                object[member] = value.foundationObject(recording: &numberTexts)
            },
            edit: { object in
                if object[member] == nil { object[member] = value }
            },
            reshape: { object in
                if object[member] == nil { object[member] = value }
            })
    }

    /// Creates a migration that replaces the member `member` of every object at `path` with what
    /// `convert` returns for it.
    ///
    /// ```swift
    /// // Version 2 stores quantities as numbers, not strings.
    /// ArchiveMigration(from: 1, converting: "quantity", in: "cart.lines[]") {
    ///     Int($0 as? String ?? "") ?? 1
    /// }
    /// ```
    ///
    /// Objects without the member are left as they are. `convert` receives and returns values as
    /// ``ArchiveMigration`` describes; returning `nil` removes the member.
    ///
    /// - Precondition: `path` is well formed (see ``init(from:renaming:to:in:)``).
    public init(
        from version: Int, converting member: String, in path: String = "",
        _ convert: @escaping @Sendable (Any) throws -> Any?
    ) {
        let steps = MemberPath.parse(path)
        self.init(from: version) { state in
            try MemberPath.forEachObject(at: steps, in: &state) { object in
                if let value = object[member] { object[member] = try convert(value) }
            }
        }
    }
}

/// The paths of the member migrations: `cart.lines[]`.
enum MemberPath {
    enum Step: Hashable {
        /// The member of this name.
        case member(String)
        /// Every element of an array, or every value of an object: `[]`.
        case each
        /// The values of a dictionary archived as an array of keys and values (the elements at odd
        /// positions), or every value of an object: `[values]`.
        case values
        /// The keys of a dictionary archived as an array of keys and values (the elements at even
        /// positions); nothing of an object, whose keys are strings: `[keys]`.
        case keys

        /// The step as the path syntax writes it, after a member name.
        var bracket: String {
            switch self {
            case .member: ""
            case .each: "[]"
            case .values: "[values]"
            case .keys: "[keys]"
            }
        }

        /// Whether the step is a member's rather than one of elements.
        var isMember: Bool {
            if case .member = self { true } else { false }
        }

        /// Whether the step takes the element at `index` of an array.
        func takes(_ index: Int) -> Bool {
            switch self {
            case .member: false
            case .each: true
            case .values: index % 2 == 1
            case .keys: index % 2 == 0
            }
        }
    }

    /// The steps of `path`; stops the program when it is malformed.
    static func parse(_ path: String) -> [Step] {
        guard let steps = steps(of: path) else {
            preconditionFailure(
                "\"\(path)\" is not a member path: write names separated by \".\", each followed by any "
                    + "number of \"[]\", \"[values]\" or \"[keys]\", such as \"cart.lines[]\", with a \"\\\" "
                    + "before each \".\", \"[\", \"]\" or \"\\\" inside a name")
        }
        return steps
    }

    /// The steps of `path`, or `nil` when it is malformed.
    static func steps(of path: String) -> [Step]? {
        if path.isEmpty { return [] }
        var steps: [Step] = []
        var characters = path.makeIterator()
        var name = ""
        var hasName = false
        var brackets: [Step] = []
        var isFirst = true
        /// Ends the part read so far; `false` when it is malformed.
        func endPart() -> Bool {
            // Only the first part may be brackets alone: the values of the state itself.
            if !hasName && (!isFirst || brackets.isEmpty) { return false }
            if hasName { steps.append(.member(name)) }
            steps += brackets
            (name, hasName, brackets, isFirst) = ("", false, [], false)
            return true
        }
        while let character = characters.next() {
            switch character {
            case "\\":
                guard brackets.isEmpty, let escaped = characters.next() else { return nil }
                name.append(escaped)
                hasName = true
            case ".":
                guard endPart() else { return nil }
            case "[":
                var inside = ""
                var isClosed = false
                while let next = characters.next() {
                    if next == "]" {
                        isClosed = true
                        break
                    }
                    inside.append(next)
                }
                guard isClosed else { return nil }
                switch inside {
                case "": brackets.append(.each)
                case "values": brackets.append(.values)
                case "keys": brackets.append(.keys)
                default: return nil
                }
            case "]":
                return nil
            default:
                guard brackets.isEmpty else { return nil }
                name.append(character)
                hasName = true
            }
        }
        return endPart() ? steps : nil
    }

    /// `name` as a part of a path: `\`, `.`, `[` and `]` preceded by a `\`.
    static func escaped(_ name: String) -> String {
        var result = ""
        for character in name {
            if "\\.[]".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// Runs `body` on every object at `steps` below `state`.
    static func forEachObject(
        at steps: [Step], in state: inout [String: Any], _ body: (inout [String: Any]) throws -> Void
    ) throws {
        var root: Any = state
        state = [:]  // One reference to the storage, so the visit changes it in place.
        try visit(&root, steps[...], body)
        state = root as? [String: Any] ?? [:]
    }

    private static func visit(
        _ value: inout Any, _ steps: ArraySlice<Step>, _ body: (inout [String: Any]) throws -> Void
    ) throws {
        guard let step = steps.first else {
            guard var object = value as? [String: Any] else { return }
            value = 0
            try body(&object)
            value = object
            return
        }
        let rest = steps.dropFirst()
        switch step {
        case .member(let name):
            guard var object = value as? [String: Any], var child = object[name] else { return }
            value = 0
            object[name] = 0
            try visit(&child, rest, body)
            object[name] = child
            value = object
        case .each, .values, .keys:
            if var array = value as? [Any] {
                value = 0
                for index in array.indices where step.takes(index) { try visit(&array[index], rest, body) }
                value = array
            } else if step != .keys, var object = value as? [String: Any] {
                value = 0
                for key in Array(object.keys) {
                    guard var child = object[key] else { continue }
                    object[key] = 0
                    try visit(&child, rest, body)
                    object[key] = child
                }
                value = object
            }
        }
    }

    /// The path, in this syntax, of the object holding the value at `codingPath` (the coding path
    /// of a value inside the state), and the value's member name: dictionary keys and array
    /// positions become `[]`, or `[values]` and `[keys]` in a dictionary archived as keys and
    /// values (`pairs`, see ``placeSteps(_:pairs:)``). `nil` when a member name cannot be written
    /// in a path (an empty one).
    static func generalized(
        _ codingPath: [any CodingKey], pairs: Set<String> = []
    ) -> (path: String, member: String?)? {
        var path = ""
        var member: String?
        for step in placeSteps(codingPath, pairs: pairs) {
            if let member {
                guard !member.isEmpty else { return nil }
                path += (path.isEmpty ? "" : ".") + escaped(member)
            }
            member = nil
            if case .member(let name) = step { member = name } else { path += step.bracket }
        }
        return (path, member)
    }

    /// The steps of the place of the value at `codingPath`, where every array position and
    /// dictionary key stands for all: `[]`, or in a dictionary archived as an array of keys and
    /// values, whose place ``placeKey(_:)`` is in `pairs`, `[keys]` or `[values]`.
    static func placeSteps(_ codingPath: some Collection<any CodingKey>, pairs: Set<String> = []) -> [Step] {
        var steps: [Step] = []
        var place = ""
        for codingKey in codingPath {
            let step: Step
            if isPosition(codingKey) {
                step = pairs.contains(place) ? ((codingKey.intValue ?? 0) % 2 == 1 ? .values : .keys) : .each
            } else if isDictionaryKey(codingKey) {
                step = .each
            } else {
                step = .member(codingKey.stringValue)
            }
            steps.append(step)
            if !pairs.isEmpty { place += key(of: step) }
        }
        return steps
    }

    /// The key of the place of the value at `codingPath`, as ``placeSteps(_:pairs:)`` gives it.
    static func placeKey(_ codingPath: some Collection<any CodingKey>, pairs: Set<String> = []) -> String {
        placeSteps(codingPath, pairs: pairs).map(key(of:)).joined()
    }

    private static func key(of step: Step) -> String {
        if case .member(let name) = step { "." + escaped(name) } else { step.bracket }
    }

    /// Whether `key` is an array position, as `JSONDecoder` names them ("Index 3").
    static func isPosition(_ key: any CodingKey) -> Bool {
        guard let index = key.intValue else { return false }
        return key.stringValue == "Index \(index)"
    }

    /// Whether `key` is a dictionary's key rather than a member a type declares: the key types of
    /// the standard library's `Dictionary` coding and of `JSONDecoder`'s own.
    static func isDictionaryKey(_ key: any CodingKey) -> Bool {
        key.stringValue != "super" && isDictionaryKeyType(type(of: key))
    }

    /// Whether `keys` is the key type of the standard library's `Dictionary` coding or of
    /// `JSONDecoder`'s own.
    static func isDictionaryKeyType(_ keys: any CodingKey.Type) -> Bool {
        dictionaryKeyTypes.contains(String(describing: keys))
    }

    private static let dictionaryKeyTypes: Set<String> = ["_DictionaryCodingKey", "_JSONKey", "_CodingKey"]
}

/// A dictionary, told apart by how `Dictionary`'s own coding archives it.
protocol KeyValueArchived {
    /// Whether it is archived as an array of keys and values, `[key, value, key, value, …]`: its
    /// keys are neither strings, integers nor `CodingKeyRepresentable`, which are archived as an
    /// object.
    static var isArchivedAsPairs: Bool { get }
}

extension Dictionary: KeyValueArchived {
    static var isArchivedAsPairs: Bool {
        if Key.self == String.self || Key.self == Int.self { return false }
        // `Dictionary` archives `CodingKeyRepresentable` keys as an object where the protocol exists.
        if #available(macOS 12.3, iOS 15.4, tvOS 15.4, watchOS 8.5, *) {
            return !(Key.self is any CodingKeyRepresentable.Type)
        }
        return true
    }
}
