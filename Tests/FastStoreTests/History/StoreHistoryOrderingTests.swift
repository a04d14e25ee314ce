@_spi(Testing) import FastStore
import FastStoreTestSupport
import Foundation
import Testing

/// History moves follow the store's order, with several threads.
@Suite struct StoreHistoryOrderingTests {
    enum Step: Hashable, Sendable {
        case append(Int)
        case block
    }

    /// A log of appended values; `.block` waits for the gate, in the reducer.
    final class Gate: @unchecked Sendable {
        let entered = DispatchSemaphore(value: 0)
        let open = DispatchSemaphore(value: 0)
    }

    @Test func aMoveAppliesAfterTheActionsDispatchedBeforeItAndBeforeThoseAfterIt() throws {
        let gate = Gate()
        let store = Store<Versioned<[Int]>, Step>(state: Versioned([])) { state, step in
            switch step {
            case .append(let value): state.value.append(value)
            case .block:
                gate.entered.signal()
                gate.open.wait()
                state.value.append(-1)
            }
        }
        let history = StoreHistory(store)
        let published = _Locked<[[Int]]>([])
        let subscription = store.subscribe { state in published.mutate { $0.append(state.value) } }
        store.dispatch(.append(0))
        // Another thread drains, held inside its reducer.
        let drainer = Thread { store.dispatch(.block) }
        drainer.start()
        gate.entered.wait()
        store.dispatch(.append(1))  // queued behind the held batch
        let undone = DispatchSemaphore(value: 0)
        let mover = Thread {
            // Called after `.append(1)` was dispatched: applies after it.
            try! history.undo()
            undone.signal()
        }
        mover.start()
        // Whenever the gate opens (before or after the undo is queued), the
        // undo applies after `.append(1)`.
        Thread.sleep(forTimeInterval: 0.05)
        gate.open.signal()
        undone.wait()
        // Dispatched after the undo returned: applies after it.
        store.dispatch(.append(2))
        store.waitUntilIdle()
        let states = published.value
        #expect(states.first == [0])
        #expect(states.last == [0, -1, 2])
        // The undo republished the state before `.append(1)`'s batch.
        #expect(states.contains([0, -1, 1]))
        let undoneAt = states.lastIndex(of: [0, -1])!
        #expect(undoneAt > states.firstIndex(of: [0, -1, 1])!)
        #expect(history[history.currentIndex]?.actions == [.append(2)])
        subscription.cancel()
    }

    @Test func concurrentDispatchesAndMovesKeepTheTimelineConsistent() async throws {
        let store = Store<Versioned<[Int]>, Step>(state: Versioned([])) { state, step in
            if case .append(let value) = step { state.value.append(value) }
        }
        let history = StoreHistory(store, limit: .entries(64))
        let threads = 4, rounds = 200
        let failures = _Locked<[String]>([])
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<threads {
                group.addTask {
                    for r in 0..<rounds {
                        let value = t * 1000 + r
                        store.dispatch(.append(value))
                        do {
                            switch r % 3 {
                            case 0: try history.undo()
                            case 1: try history.redo()
                            default: try history.jump(to: max(history.indices.lowerBound, history.currentIndex - 2))
                            }
                        } catch let error as StoreHistoryError {
                            switch error {
                            case .nothingToUndo, .nothingToRedo, .evicted: break
                            default: failures.mutate { $0.append("\(error)") }
                            }
                        } catch {
                            failures.mutate { $0.append("\(error)") }
                        }
                    }
                }
            }
        }
        store.waitUntilIdle()
        #expect(failures.value.isEmpty)
        // The store's state is the current entry's, and every entry is its
        // predecessor plus its actions (the redo branch was dropped when
        // needed, never mixed in).
        #expect(history[history.currentIndex]!.state.value == store.state.value)
        let kept = history.indices
        for index in kept.dropFirst() {
            let before = history[index - 1]!, entry = history[index]!
            let appended = entry.actions.compactMap { if case .append(let v) = $0 { v } else { nil } }
            #expect(entry.state.value == before.state.value + appended || !history.indices.contains(index - 1))
        }
        #expect(store.dispatchedCount == UInt64(threads * rounds))
    }
}

/// A value behind a lock, for test bookkeeping across threads.
final class _Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var _value: Value
    init(_ value: Value) { _value = value }
    var value: Value { lock.lock(); defer { lock.unlock() }; return _value }
    func mutate(_ body: (inout Value) -> Void) { lock.lock(); body(&_value); lock.unlock() }
}
