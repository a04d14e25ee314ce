import FastStore
import XCTest

/// A cancelled subscription must let go of its subscriber's closure, so a
/// subscriber that keeps (and cancels) its own subscription (a one-shot
/// subscriber) does not keep what it captured alive.
final class StoreSubscriptionLeakXCTests: XCTestCase {
    private final class Probe {}

    func testASubscriberCancellingItsOwnSubscriptionIsReleased() {
        let store = Store<Int, Int>(state: 0) { $0 += $1 }
        weak var weakProbe: Probe?
        do {
            let probe = Probe()
            weakProbe = probe
            var own: StoreSubscription?
            own = store.subscribe { _ in
                _ = probe
                own?.cancel()
            }
            store.dispatch(1)
        }
        XCTAssertEqual(store.subscriberCount, 0)
        XCTAssertNil(weakProbe, "the cancelled subscription still holds its subscriber's closure")
    }
}
