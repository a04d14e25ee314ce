import FastStore
import Dispatch
import FastStoreTestSupport
import Foundation
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

/// A read racing a publish from another thread. The store's part: a read
/// that gets an older state than a publish's must have registered before
/// that publish notifies (issue 12: the publish notified before writing,
/// and a read landing in between registered too late and read the old
/// state; 5 to 62 in 20,000 rounds here).
///
/// Observation's own window: `withObservationTracking` installs its
/// observers only when its closure returns, so a publish landing between
/// the read and that moment tells nobody (Apple's `@Observable` classes
/// mutated from another thread have the same window). The store tells such
/// a tracking again, asynchronously, while it still holds the key of the
/// state it read after the publish (a told tracking lets it go). Without
/// that, this test saw 0 to 2 in 100,000 rounds on an idle machine and more
/// than 10 on a loaded one. The test waits for the store's own
/// re-notifications to be over (a bounded number of attempts), so none may
/// be left stale, under ThreadSanitizer too.
@Suite struct StoreObservationRaceTests {
    /// Whether the process runs with ThreadSanitizer's runtime.
    static var runsUnderThreadSanitizer: Bool {
        guard let process = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(process) }
        return dlsym(process, "__tsan_init") != nil
    }

    @Test func aTrackedReadIsNeverLeftWithAStaleState() {
        let store = Store<Int, Int>(state: 0) { $0 += $1 }
        var stale = 0
        // NB: under ThreadSanitizer every access is instrumented and a round
        // takes about 10 times longer: fewer rounds there.
        let rounds = environmentRuns(fallback: Self.runsUnderThreadSanitizer ? 10_000 : 100_000)
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
            // NB: a read of the newest state needs no notification; an older
            // one waits until it is told or the re-notifications are over.
            let newest = store.state
            waitForRenotifications(of: store) { seen.withValue { $0 } == newest || fired.withValue { $0 } }
            if seen.withValue({ $0 }) < store.state && !fired.withValue({ $0 }) { stale += 1 }
        }
        print("whole-state observation race: \(stale) of \(rounds) tracked reads kept an old state untold")
        #expect(stale == 0, "\(stale) of \(rounds) tracked reads kept an old state with no change notification")
    }
}
