import FastStore
import XCTest

/// FastStore from XCTest, as existing ReSwift test suites use it: dispatch
/// from background queues, wait for the store, check state and subscribers.
final class XCTestCompatibilityTests: XCTestCase {
    func testDispatchFromBackgroundQueuesAndFlush() async {
        let store = Store<Int, Int>(state: 0) { $0 += $1 }
        let notified = expectation(description: "a subscriber sees the final state")
        notified.assertForOverFulfill = false
        let token = store.subscribe { state in
            if state == 1_000 { notified.fulfill() }
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<250 { store.dispatch(1) } }
            }
        }
        await store.flush()
        await fulfillment(of: [notified], timeout: 5)
        XCTAssertEqual(store.state, 1_000)
        token.cancel()
    }

    func testStateConsumerOnPlainState() {
        struct AppState { var counter = 0; var name: String? = nil }
        let store = Store<AppState, Int>(state: AppState()) { state, n in state.counter += n }
        let consumer = StateConsumer<AppState>()
        var seen: [Int] = []
        consumer.add({ $0.counter }) { (_: Int?, new: Int) in seen.append(new) }
        let subscription = store.subscribe { consumer.consume(newState: $0) }
        store.dispatch(1)
        store.dispatch(0)   // no change: no callback
        store.dispatch(2)
        XCTAssertEqual(seen, [1, 3])
        subscription.cancel()
    }
}
