import ReduxSwift
import Testing

@Suite struct ActionTests {
    enum Counter: ActionProtocol {
        case increment
        case add(Int)
        case rename(from: String, to: String)
    }

    struct Login: ActionProtocol {
        var user: String
    }

    @Test func enumCasesAreIdentifiedByTypeAndCaseName() {
        #expect(Counter.increment.identifier == "Counter.increment")
    }

    @Test func associatedValuesAreLeftOutOfTheIdentifier() {
        #expect(Counter.add(3).identifier == "Counter.add")
        #expect(Counter.rename(from: "a", to: "b").identifier == "Counter.rename")
    }

    @Test func otherTypesAreIdentifiedByTypeName() {
        #expect(Login(user: "ada").identifier == "Login")
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
