import FastStore
import Foundation
import Testing

/// `dispatch(contentsOf:)` with a sequence whose code reaches the store.
@Suite struct StoreSequenceDispatchTests {
    /// A lazy sequence's closure runs while `dispatch(contentsOf:)` reads
    /// it: it may read the store's state and dispatch into it. Before the
    /// sequence was read outside the store's lock, this trapped ("Recursive
    /// call to lock Mutex": the closure took the lock its caller held; on
    /// a lock that does not check, a deadlock).
    @Test func aLazySequenceMayReadTheStoreAndDispatchWhileItIsRead() {
        let store = Store<[Int], Int>(state: [0]) { state, action in state.append(action) }
        let done = DispatchSemaphore(value: 0)
        let seen = Locked<[[Int]]>([])
        Thread.detachNewThread {
            store.dispatch(contentsOf: [1, 2].lazy.map { (action: Int) -> Int in
                seen.withValue { $0.append(store.state) }
                if action == 2 { store.dispatch(9) }
                return action * 10
            })
            done.signal()
        }
        // NB: not a bound on speed: a deadlock never signals, and 60 s turns
        // it into a failure instead of a hung suite.
        guard done.wait(timeout: .now() + 60) == .success else {
            Issue.record("dispatch(contentsOf:) deadlocked reading a lazy sequence that reads the store")
            return
        }
        store.waitUntilIdle()
        #expect(seen.withValue { $0 } == [[0], [0]], "the sequence is read before any of its actions is queued")
        #expect(store.state == [0, 9, 10, 20], "the action dispatched while the sequence was read comes first")
    }
}
