import Foundation
import ReduxSwift
import Testing

/// A feature's own state, actions and reducers, as `redux-scaffold` writes them.
private struct CartState: StateProtocol, Equatable {
    var lines: [String] = []
    var total = 0
}

private enum CartAction: ActionProtocol, Equatable {
    case add(String, price: Int)
    /// Changes the state, then throws: the whole action must be rejected.
    case addThenFail(String)
}

private struct CartFailure: Error, Equatable {}

private enum CartReducers: ReducerProtocol {
    static var reducers: [Reducer<CartState>] {
        [
            { state, action in
                switch action as? CartAction {
                case .add(let line, _)?: state.lines.append(line)
                case .addThenFail(let line)?:
                    state.lines.append(line)
                    throw CartFailure()
                case nil: break
                }
            },
            // Runs second: sees the line the first one appended.
            { state, action in
                if case .add(_, let price)? = action as? CartAction {
                    state.total += price * state.lines.count
                }
            },
        ]
    }
}

/// A feature inside another feature, itself lifted into the app.
private struct ShopState: StateProtocol, Equatable {
    var cart = CartState()
    var visits = 0
}

private enum ShopReducers: ReducerProtocol {
    static var reducers: [Reducer<ShopState>] {
        [{ state, action in if action.identifier == "visit" { state.visits += 1 } }]
            + CartReducers.reducers(at: \.cart)
    }
}

private struct HostState: StateProtocol, Equatable {
    var shop = ShopState()
    var cart = CartState()
    var other = "untouched"
}

/// `ReducerProtocol.reducers(at:)`: a feature's reducers joined to the app's one store.
@Suite(.offThePool) struct FeatureReducerTests {
    @Test func liftedReducersChangeOnlyTheirMemberInTheirOrder() {
        let store = Store(reducers: CartReducers.reducers(at: \HostState.cart), state: HostState())
        store.dispatch(CartAction.add("tea", price: 3))
        store.dispatch(CartAction.add("milk", price: 2))
        var expected = HostState()
        expected.cart = CartState(lines: ["tea", "milk"], total: 3 * 1 + 2 * 2)
        #expect(store.currentState() == expected)
    }

    @Test func aLiftedReducerThatThrowsAfterChangingItsPartLeavesTheWholeStateAsItWas() {
        let store = Store(reducers: CartReducers.reducers(at: \HostState.cart), state: HostState())
        let failures = Recorder<StoreNotification>()
        let token = store.observeFailures { failures.append($0) }
        store.dispatch(CartAction.add("tea", price: 3))
        let before = store.currentState()
        store.dispatch(CartAction.addThenFail("rum"))
        #expect(store.currentState() == before)
        #expect(failures.wait(forCount: 1))
        #expect(failures.values.first?.error as? CartFailure == CartFailure())
        token.cancel()
    }

    @Test func aBatchOfSeveralFeaturesActionsRollsBackEveryPartWhenOneFails() {
        let store = Store(
            reducers: ShopReducers.reducers(at: \HostState.shop) + CartReducers.reducers(at: \HostState.cart),
            state: HostState())
        store.dispatch(batch: [
            Action("visit"), CartAction.add("tea", price: 3), CartAction.addThenFail("rum"),
        ])
        #expect(store.currentState() == HostState())
        store.dispatch(batch: [Action("visit"), CartAction.add("tea", price: 3)])
        let state = store.currentState()
        #expect(state.shop == ShopState(cart: CartState(lines: ["tea"], total: 3), visits: 1))
        #expect(state.cart == CartState(lines: ["tea"], total: 3))
        #expect(state.other == "untouched")
    }

    @Test func featuresNestAndTheSameFeatureCanSitAtTwoMembers() {
        let store = Store(reducers: ShopReducers.reducers(at: \HostState.shop), state: HostState())
        store.dispatch(CartAction.add("tea", price: 3))
        store.dispatch(Action("visit"))
        #expect(store.currentState().shop == ShopState(cart: CartState(lines: ["tea"], total: 3), visits: 1))
        #expect(store.currentState().cart == CartState())
    }

    @Test func registeringLaterAddsTheFeatureToARunningStore() {
        let store = Store(reducers: [], state: HostState())
        store.dispatch(CartAction.add("before", price: 1))
        store.register(CartReducers.reducers(at: \.cart))
        store.dispatch(CartAction.add("after", price: 1))
        #expect(store.currentState().cart.lines == ["after"])
    }

    @Test func undoTakesBackAFeaturesChange() {
        let store = Store(reducers: CartReducers.reducers(at: \HostState.cart), state: HostState())
        let history = store.recordHistory()
        store.dispatch(CartAction.add("tea", price: 3))
        #expect(store.currentState().cart.lines == ["tea"])
        history.undo()
        #expect(store.currentState() == HostState())
    }
}
