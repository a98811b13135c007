import ReduxSwift
import Testing

@Suite(.offThePool) struct ActionTests {
    enum Counter: ActionProtocol {
        case increment
        case add(Int)
        case rename(from: String, to: String)
    }

    struct Login: ActionProtocol {
        var user: String
    }

    final class Logout: ActionProtocol {}

    class Navigation: ActionProtocol, @unchecked Sendable {
        // `@unchecked Sendable`: no stored properties.
        init() {}
    }

    final class Back: Navigation, @unchecked Sendable {}

    enum Screen {
        enum Action: ActionProtocol {
            case appeared
            case scrolled(offset: Double)
        }
    }

    enum Loaded<Value: Sendable>: ActionProtocol {
        case value(Value)
        case empty
    }

    /// Payloads of several layouts side by side, so that cases are told apart by spare bits, extra
    /// tag bytes and payload-free values alike.
    indirect enum Edit: ActionProtocol {
        case text(String)
        case number(Int)
        case flag(Bool)
        case list([Int])
        case pair(Edit, Edit)
        case undo
        case redo
        case clear
    }

    enum Only: ActionProtocol {
        case one
    }

    /// Every shape of action with the identifier the documented format gives it.
    static let shapes: [(action: any ActionProtocol, identifier: String)] = [
        (Counter.increment, "Counter.increment"),
        (Counter.add(3), "Counter.add"),
        (Counter.rename(from: "a", to: "b"), "Counter.rename"),
        (Screen.Action.appeared, "Action.appeared"),
        (Screen.Action.scrolled(offset: 2.5), "Action.scrolled"),
        (Loaded<Int>.value(1), "Loaded<Int>.value"),
        (Loaded<Int>.empty, "Loaded<Int>.empty"),
        (Loaded<String>.value("a"), "Loaded<String>.value"),
        (Loaded<[String]>.empty, "Loaded<Array<String>>.empty"),
        (Edit.text("a"), "Edit.text"),
        (Edit.number(1), "Edit.number"),
        (Edit.flag(true), "Edit.flag"),
        (Edit.list([1, 2]), "Edit.list"),
        (Edit.pair(.undo, .text("b")), "Edit.pair"),
        (Edit.undo, "Edit.undo"),
        (Edit.redo, "Edit.redo"),
        (Edit.clear, "Edit.clear"),
        (Only.one, "Only.one"),
        (Login(user: "ada"), "Login"),
        (Logout(), "Logout"),
        (Navigation(), "Navigation"),
        (Back(), "Back"),
    ]

    @Test func enumCasesAreIdentifiedByTypeAndCaseName() {
        #expect(Counter.increment.identifier == "Counter.increment")
        #expect(Edit.redo.identifier == "Edit.redo")
        #expect(Only.one.identifier == "Only.one")
    }

    @Test func associatedValuesAreLeftOutOfTheIdentifier() {
        #expect(Counter.add(3).identifier == "Counter.add")
        #expect(Counter.add(4).identifier == "Counter.add")
        #expect(Counter.rename(from: "a", to: "b").identifier == "Counter.rename")
        #expect(Edit.pair(.text("a"), .clear).identifier == "Edit.pair")
        #expect(Edit.pair(.clear, .clear).identifier == "Edit.pair")
    }

    @Test func aNestedEnumIsIdentifiedByItsOwnName() {
        #expect(Screen.Action.appeared.identifier == "Action.appeared")
        #expect(Screen.Action.scrolled(offset: 1).identifier == "Action.scrolled")
    }

    @Test func aGenericEnumNamesItsTypeArguments() {
        #expect(Loaded<Int>.value(1).identifier == "Loaded<Int>.value")
        #expect(Loaded<String>.value("a").identifier == "Loaded<String>.value")
        #expect(Loaded<[String]>.empty.identifier == "Loaded<Array<String>>.empty")
    }

    @Test func otherTypesAreIdentifiedByTypeName() {
        #expect(Login(user: "ada").identifier == "Login")
        #expect(Logout().identifier == "Logout")
        #expect(Back().identifier == "Back")
    }

    @Test func aSubclassReadAsItsSuperclassIsIdentifiedByTheSuperclass() {
        let back: Navigation = Back()
        #expect(back.identifier == "Navigation")
        #expect((back as any ActionProtocol).identifier == "Navigation")
        #expect((Back() as any ActionProtocol).identifier == "Back")
    }

    @Test func everyShapeHasTheSameIdentifierReadDirectlyOrThroughAnyActionProtocol() {
        for (action, identifier) in Self.shapes {
            #expect(action.identifier == identifier)
            #expect(action.identifier == identifier, "a second read, from the cache")
        }
        #expect(Counter.add(5).identifier == (Counter.add(5) as any ActionProtocol).identifier)
    }

    @Test func identifiersAreRightWhenManyThreadsReadThemAtOnce() {
        // Types read nowhere else, so that the threads also race to build and store each identifier.
        enum Race: ActionProtocol {
            case start
            case lap(Int)
            case finish(time: Double, by: String)
            case abandon
        }
        let expected: [(action: any ActionProtocol, identifier: String)] =
            [
                (Race.start, "Race.start"), (Race.lap(1), "Race.lap"), (Race.lap(2), "Race.lap"),
                (Race.finish(time: 1, by: "ada"), "Race.finish"), (Race.abandon, "Race.abandon"),
                (Loaded<Double>.value(1), "Loaded<Double>.value"),
                (Loaded<Double>.empty, "Loaded<Double>.empty"),
                (Loaded<Bool>.empty, "Loaded<Bool>.empty"),
            ] + Self.shapes
        let mismatches = Recorder<String>()
        onThreads(16) { thread in
            for round in 0..<200 {
                for offset in expected.indices {
                    let (action, identifier) = expected[(offset + thread + round) % expected.count]
                    let read = action.identifier
                    if read != identifier { mismatches.append("\(read) instead of \(identifier)") }
                }
            }
        }
        #expect(mismatches.values == [])
    }

    @Test func thePayloadIsNilByDefault() {
        #expect(Counter.increment.payload == nil)
        #expect(Login(user: "ada").payload == nil)
    }

    @Test func stringActionsKeepTheirIdentifierAndPayload() {
        let action = Action("todos.add", payload: "Buy milk")
        #expect(action.identifier == "todos.add")
        #expect(action.payload as? String == "Buy milk")
        #expect(Action("todos.clear").payload == nil)
        #expect(action.description == "Action(todos.add, payload: Buy milk)")
    }
}
