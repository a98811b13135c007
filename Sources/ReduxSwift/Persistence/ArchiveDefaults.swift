/// A type whose members an archive may lack: each missing member takes the value it has in `init()`.
///
/// Conform the types that gain stored properties as the app is updated. When an archive written
/// by an earlier version lacks a member, a ``StateArchive`` load takes that member from a value
/// made with `init()`, so a property declared with a default holds that default, with no
/// migration code:
///
/// ```swift
/// struct Settings: Codable, Equatable, ArchiveDefaults {
///     var fontSize = 14
///     var giftWrap = false  // added in version 1.1 of the app
/// }
/// ```
///
/// A struct whose stored properties all have defaults has `init()` already. Give any other type
/// one, in an extension so that its memberwise initializer stays:
///
/// ```swift
/// struct CartLine: Codable, Equatable, ArchiveDefaults {
///     var productID: String
///     var quantity: Int
///     var giftWrap = false  // added in version 1.1 of the app
/// }
///
/// extension CartLine {
///     init() { self.init(productID: "", quantity: 0) }
/// }
/// ```
///
/// The rules, wherever the type appears (the state itself, a nested value, an array element, a
/// dictionary value):
///
/// - Only a member the archive lacks is filled, and only one that the type decodes with
///   `decode(_:forKey:)`, as synthesized `Codable` does for every non-optional property. Its value
///   is what `init()` gives it, read through the type's own `encode(to:)` and `init(from:)`, so
///   `CodingKeys`, nested containers, custom coding and superclasses decoded through a super
///   decoder are followed.
/// - Each object gets its own value: a default such as `var id = UUID()` gives every filled element
///   a different identifier, and a class instance in a default is never shared between objects.
///   (`init()` is called twice per type and load to tell; when the two values encode alike, one
///   serves every object.)
/// - A value the app decodes itself, as `Border(from: container.superDecoder(forKey: .border))`, is
///   not filled: the decoder is never told its type, so its defaults are unknown. The load then
///   fails with ``PersistenceError/Kind/needsMigration(path:detail:migration:)`` naming the missing
///   member and the migration that adds it, and leaves the file as it was; decoding the value with
///   `container.decode(Border.self, forKey: .border)` fills it instead.
/// - An optional property is never filled: a missing optional decodes as `nil`, because that is
///   how `JSONEncoder` saves `nil`. Filling it would turn a saved `nil` into the default.
/// - A load that fills a member refuses an archive whose object there holds a member the type
///   neither knows nor reads, when that member's value reads as a value of the filled member's
///   type: that is what a rename looks like, and filling would hide the old value. An optional the
///   archive lacks beside such a member is refused the same way, since reading it as `nil` would
///   lose the old value. The error,
///   ``PersistenceError/Kind/needsMigration(path:detail:migration:)``, shows the migration that
///   renames it, and the one that removes it, for a property removed in the same update as one of
///   the same type was added; when several members could be the old name, it asks which.
/// - A rename that also changes the type cannot be told from a removal and an addition: alone in
///   its object, it loads, without the old value; beside other changes of the object, the advice
///   asks about the old member. Keep archives of released versions as fixtures:
///   ``StateArchive/loadFixture(at:)`` fails on any value the current types drop.
///
/// Loads that need no filling decode exactly as `JSONDecoder` does; the first save after a filled
/// load writes the complete state. Other changes need nothing either: a new enum case, a
/// property made optional, and a removed property load as they are.
///
/// `init()` runs on the thread that loads, so the conformance is never isolated to an actor. In a
/// module whose declarations are main-actor-isolated by default (an Xcode 26 app target), name
/// `ArchiveDefaults` where the type is declared, as above, together with `Codable`: declared in an
/// extension, it would need the type's `Codable` conformance to be `nonisolated`.
public protocol ArchiveDefaults: Codable, SendableMetatype {
    /// A value whose members are the defaults for members that an archive lacks.
    init()
}
