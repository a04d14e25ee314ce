#if canImport(XCTest)
import FastStore
@testable import FastStoreTesting
import XCTest

/// The test store from XCTest: passing steps report nothing; failures go to
/// `XCTFail` (here caught by the collector, since XCTest on Linux has no
/// expected failures).
final class TestStoreXCTests: XCTestCase {
    func testSendAndReceive() {
        let store = makeStore()
        store.send(.increment) { $0.count = 1 }
        store.send(.load) { $0.isLoading = true }
        store.receive(.loaded(42)) {
            $0.isLoading = false
            $0.count = 42
        }
        store.finish()
    }

    func testWaitingReceive() async {
        let store = makeStore()
        store.send(.loadLater) { $0.isLoading = true }
        await store.receive(.loaded(7), timeout: .seconds(60)) {
            $0.isLoading = false
            $0.count = 7
        }
        store.finish()
    }

    func testFailuresAreReportedWithTheirDifference() {
        let collector = _FailureCollector()
        _FailureReporter.$collector.withValue(collector) {
            let store = makeStore()
            store.send(.increment) { $0.count = 2 }
            store.send(.load) { $0.isLoading = true }
            store.finish()
        }
        XCTAssertEqual(collector.messages.count, 2)
        XCTAssertTrue(collector.messages.first?.contains("  state.count: 2 → 1") == true, "\(collector.messages)")
        XCTAssertTrue(collector.messages.last?.contains("  • .loaded(42)") == true, "\(collector.messages)")
    }
}
#endif
