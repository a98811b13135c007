import Foundation
import ReduxSwift
import Testing

/// The whole API at once, from many threads, checked against a model: exact final states, every
/// committed action announced exactly once and in order, no observer call after `cancel()`
/// returned, complete recordings, and no deadlock (a watchdog fails a phase that hangs).
///
/// Each case mixes plain dispatches, failing actions and reads with the features it names, so a
/// failure points at a feature. The run lasts `REDUXSWIFT_STRESS_SECONDS` per case (0.25 by
/// default) or `REDUXSWIFT_STRESS_ITERATIONS` operations per worker; `REDUXSWIFT_STRESS_SEED`
/// replays a seed printed by a failure (thread timing still varies between runs).
@Suite(.serialized, .offThePool) struct StoreStressTests {
    static let mixes: [[StressFeature]] =
        [[]] + StressFeature.allCases.map { [$0] } + [
            [.nestedBatches, .transactions],
            [.asyncActions, .transactions],
            [.observers, .relays],
            [.middleware, .history],
            [.middleware, .recordings],
            [.locks, .transactions],
            StressFeature.allCases,
        ]

    @Test(arguments: mixes)
    func theStoreKeepsEveryPromiseUnderAMixOf(_ features: [StressFeature]) {
        let configuration = StressConfiguration.current
        let run = StressRun(features: Set(features), configuration: configuration)
        if let report = run.run() {
            let name = features.isEmpty ? "the base mix" : features.map(\.rawValue).joined(separator: " + ")
            Issue.record(
                """
                Store stress with \(name) failed; replay with REDUXSWIFT_STRESS_SEED=\(configuration.seed) \
                (REDUXSWIFT_STRESS_SECONDS=\(configuration.seconds)):
                \(report)
                """)
        }
    }
}
