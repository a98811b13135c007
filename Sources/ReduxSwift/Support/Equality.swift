/// `==` for a type known to be `Equatable` only at run time.
enum Equality {
    /// `==` when `Value` is `Equatable` (conditional conformances included), `nil` otherwise.
    static func of<Value>(_: Value.Type) -> (@Sendable (Value, Value) -> Bool)? {
        guard let equatable = Value.self as? any (Equatable & SendableMetatype).Type else { return nil }
        return comparing(equatable, as: Value.self)
    }

    private static func comparing<Compared: Equatable & SendableMetatype, Value>(
        _: Compared.Type, as _: Value.Type
    ) -> @Sendable (Value, Value) -> Bool {
        // `Value` is `Compared`: the casts only restore the static type.
        { ($0 as! Compared) == ($1 as! Compared) }
    }
}
