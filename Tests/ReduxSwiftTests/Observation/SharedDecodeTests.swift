import Foundation
import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct SharedDecodeTests {
    struct Bump: ActionProtocol {
        let index: Int
    }

    @Test func selectorsOnOneThreadShareOneDecodePerChange() {
        let store = Store<DecodeCountedState>(
            reducers: [{ state, action in if let bump = action as? Bump { state.values[bump.index] += 1 } }],
            state: DecodeCountedState())
        let before = DecodeCounter.shared.count
        let seen = Recorder<Int>()
        let tokens = (0..<100).map { index in store.observe({ $0.values[index] }) { _ in seen.append(index) }
        }
        #expect(DecodeCounter.shared.count - before == 1, "registering 100 selectors decodes once")
        store.dispatch(Bump(index: 42))
        #expect(seen.wait { $0.count == 101 })
        #expect(seen.values.last == 42)
        #expect(DecodeCounter.shared.count - before == 2, "one more decode for the change, shared by all 100")
        withExtendedLifetime(tokens) {}
    }
}
