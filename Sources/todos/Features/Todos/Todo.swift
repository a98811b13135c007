/// One thing to do.
struct Todo: Codable, Equatable, Sendable {
    /// A number that stays the same for the todo's whole life.
    var id: Int
    var text: String
    var isCompleted = false
}
