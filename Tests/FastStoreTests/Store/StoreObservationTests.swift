import FastStore
import Dispatch
import Observation
import Testing

@Suite struct StoreObservationTests {
    @Test func withObservationTrackingSeesPublishedChanges() {
        let store = Store<Int, Int>(state: 0) { $0 += $1 }
        let changes = Locked(0)
        func track() {
            withObservationTracking {
                _ = store.state
            } onChange: {
                changes.withValue { $0 += 1 }
            }
        }
        track()
        store.dispatch(1)
        #expect(changes.withValue { $0 } == 1)
        store.dispatch(1)  // onChange fires once per registration
        #expect(changes.withValue { $0 } == 1)
        track()
        store.dispatch(1)
        #expect(changes.withValue { $0 } == 2)
        #expect(store.state == 3)
    }
}

/// A read racing a publish: whatever state it reads, it must either see
/// the newest one or be told of the change (issue 12: a read landing between
/// the publish's notification and its write registered too late and read
/// the old state).
@Suite struct StoreObservationRaceTests {
    @Test func aTrackedReadIsNeverLeftWithAStaleState() {
        let store = Store<Int, Int>(state: 0) { $0 += $1 }
        var stale = 0
        let rounds = 20_000
        for _ in 0 ..< rounds {
            let fired = Locked(false)
            let seen = Locked(-1)
            DispatchQueue.concurrentPerform(iterations: 2) { worker in
                if worker == 0 {
                    store.dispatch(1)
                } else {
                    withObservationTracking {
                        let value = store.state
                        seen.withValue { $0 = value }
                    } onChange: {
                        fired.withValue { $0 = true }
                    }
                }
            }
            store.waitUntilIdle()
            if seen.withValue({ $0 }) < store.state && !fired.withValue({ $0 }) { stale += 1 }
        }
        #expect(stale == 0, "\(stale) of \(rounds) tracked reads kept an old state with no change notification")
    }
}
