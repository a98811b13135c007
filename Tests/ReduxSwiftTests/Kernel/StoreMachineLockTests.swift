import Foundation
import Testing

@testable import ReduxSwift

@Suite(.offThePool) struct StoreMachineLockTests {
    typealias Machine = StoreMachine<String, Int>

    @Test func aLockedMachineReducesOnlyExclusiveEntriesAndReadersSkipHeldOnes() {
        var machine = Machine(initialSnapshot: Snapshot(version: 0, result: .success(Data())))
        let lock = machine.lock()
        #expect(machine.enqueue("held").scheduleDrain == false)
        #expect(machine.enqueue("passes", .passingLocks).scheduleDrain == true)
        #expect(machine.startDrain().pass == ["passes"])
        var waiterCount = 0
        let read = machine.beginRead(waiting: true) {
            waiterCount += 1
            return waiterCount
        }
        guard case .waitForSnapshot = read.next else {
            Issue.record("a reader must wait for the exclusive entry in progress")
            return
        }
        let effects = machine.finishPass(processed: 1, changes: 1, events: [])
        let step = effects.next
        guard case .encode(let version) = step else {
            Issue.record("the drainer must encode for the reader, not reduce the held entry")
            return
        }
        #expect(version == 1)
        #expect(effects.resumed.isEmpty)
        let published = machine.drainerDidEncode(Snapshot(version: 1, result: .success(Data())))
        let next = published.next
        #expect(published.resumed == [1])
        guard case .nothing = next else {
            Issue.record("the held entry must wait for the unlock")
            return
        }
        #expect(machine.unlock(lock).scheduleDrain == true)
        #expect(machine.startDrain().pass == ["held"])
    }

    @Test func entriesQueuedBeforeTheFirstLockAreStillReduced() {
        var machine = Machine(initialSnapshot: Snapshot(version: 0, result: .success(Data())))
        #expect(machine.enqueue("before").scheduleDrain == true)
        let lock = machine.lock()
        #expect(machine.enqueue("after").scheduleDrain == false)
        #expect(machine.enqueue("through", .passingLocks).scheduleDrain == false)
        #expect(machine.startDrain().pass == ["before", "through"])
        _ = machine.finishPass(processed: 2, changes: 2, events: [])
        #expect(machine.unlock(lock).scheduleDrain == true)
        #expect(machine.startDrain().pass == ["after"])
    }

    @Test func releasingAnOlderLockLetsThroughWhatOnlyItHeld() {
        var machine = Machine(initialSnapshot: Snapshot(version: 0, result: .success(Data())))
        let first = machine.lock()
        #expect(machine.enqueue("x").scheduleDrain == false)
        let second = machine.lock()
        #expect(machine.enqueue("y").scheduleDrain == false)
        let third = machine.lock()
        #expect(machine.enqueue("z").scheduleDrain == false)
        #expect(machine.unlock(second).scheduleDrain == false, "first still holds x, y and z")
        #expect(machine.unlock(first).scheduleDrain == true)
        #expect(machine.lockCount == 1)
        #expect(machine.startDrain().pass == ["x", "y"])
        _ = machine.finishPass(processed: 2, changes: 2, events: [])
        #expect(machine.unlock(third).scheduleDrain == true)
        #expect(machine.startDrain().pass == ["z"])
    }

    @Test(arguments: 0..<20)
    func randomOverlappingLocksMatchAModelWhereEachEntryWaitsOnlyForOlderLocks(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var machine = Machine(initialSnapshot: Snapshot(version: 0, result: .success(Data())))
        // The model: a plain entry may be reduced once every lock taken before it is released, and
        // must be then; an exclusive entry at once.
        var held: [(id: UInt64, takenAt: Int)] = []
        var waiting: [String: Int] = [:]
        var enqueued = 0
        func mayPass(_ index: Int) -> Bool { !held.contains { $0.takenAt <= index } }
        for step in 0..<300 {
            switch random.next() % 5 {
            case 0:
                held.append((machine.lock(), enqueued))
            case 1 where !held.isEmpty:
                let lock = held.remove(at: Int(random.next() % UInt64(held.count)))
                _ = machine.unlock(lock.id)
            case 2:
                _ = machine.enqueue("exclusive \(step)", .passingLocks)
                waiting["exclusive \(step)"] = -1
            default:
                _ = machine.enqueue("plain \(step)")
                waiting["plain \(step)"] = enqueued
            }
            enqueued += 1
            var pass = machine.startDrain().pass ?? []
            while !pass.isEmpty {
                for entry in pass {
                    let index = waiting.removeValue(forKey: entry)
                    #expect(
                        index.map { $0 < 0 || mayPass($0) } == true, "seed \(seed): \(entry) passed a lock")
                }
                guard
                    case .reduce(let next) = machine.finishPass(
                        processed: pass.count, changes: pass.count, events: []
                    ).next
                else { break }
                pass = next
            }
            let stuck = waiting.filter { $0.value < 0 || mayPass($0.value) }.keys.sorted()
            guard stuck.isEmpty else {
                Issue.record("seed \(seed), step \(step): \(stuck) wait for no lock but were not reduced")
                return
            }
        }
    }

    /// Chain changes (registrations `reg k`, removals `rm k`) made amid random locks, plain
    /// dispatches and dispatches through locks: each action, whenever the locks let it through,
    /// meets the chain of the changes queued before it, and only those.
    @Test(arguments: 0..<20)
    func chainChangesAmidRandomLocksAffectExactlyTheActionsQueuedAfterThem(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var machine = Machine(initialSnapshot: Snapshot(version: 0, result: .success(Data())))
        var held: [UInt64] = []
        var live: Set<Int> = []
        var registered = 0
        var expected: [String: Set<Int>] = [:]
        // The chain the reduced entries build, as the pipeline builds it.
        var visible: Set<Int> = []
        var hidden: Set<Int> = []
        func drain() {
            var pass = machine.startDrain().pass ?? []
            while !pass.isEmpty {
                for entry in pass {
                    let parts = entry.split(separator: " ")
                    let key = Int(parts[1]) ?? -1
                    switch parts[0] {
                    case "reg": visible.insert(key)
                    case "rm":
                        visible.remove(key)
                        hidden.remove(key)
                    case "hide": if visible.remove(key) != nil { hidden.insert(key) }
                    case "show": if hidden.remove(key) != nil { visible.insert(key) }
                    default:
                        #expect(expected.removeValue(forKey: entry) == visible, "seed \(seed): \(entry)")
                    }
                }
                guard
                    case .reduce(let next) = machine.finishPass(
                        processed: pass.count, changes: 0, events: []
                    ).next
                else { break }
                pass = next
            }
        }
        for step in 0..<300 {
            switch random.next() % 7 {
            case 0:
                held.append(machine.lock())
            case 1 where !held.isEmpty:
                _ = machine.unlock(held.remove(at: Int(random.next() % UInt64(held.count))))
            case 2:
                let key = registered
                registered += 1
                live.insert(key)
                _ = machine.enqueueChainChange(
                    .init(
                        plain: "reg \(key)", passing: "reg \(key)", revert: "hide \(key)",
                        reinstate: "show \(key)", finish: "show \(key)"))
            case 3 where registered > 0:
                // Any key ever registered: removing one twice does nothing more.
                let key = Int(random.next() % UInt64(registered))
                live.remove(key)
                _ = machine.enqueueChainChange(
                    .init(
                        plain: "rm \(key)", passing: "hide \(key)", revert: "show \(key)",
                        reinstate: "hide \(key)", finish: "rm \(key)"))
            case 4:
                _ = machine.enqueue("passing \(step)", .passingLocks)
                expected["passing \(step)"] = live
            default:
                _ = machine.enqueue("plain \(step)")
                expected["plain \(step)"] = live
            }
            drain()
        }
        for lock in held { _ = machine.unlock(lock) }
        drain()
        #expect(expected.isEmpty, "seed \(seed): \(expected.keys.sorted()) were never reduced")
        #expect(hidden.isEmpty, "seed \(seed): once no lock is held, no change is left undone")
        #expect(visible == live)
    }
}
