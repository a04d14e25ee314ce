@_spi(Testing) import FastStore
import Dispatch
import Foundation
import Observation
import Testing

/// The earlier-read rule (docs/observation.md, "Races") when one tracking
/// reads the `state` of more stores than a thread keeps reads of.
@Suite struct ObservationManyStoresTests {
    /// Regression (review): a thread keeps its latest `state` read of at
    /// most 32 stores. A tracking that held a value of store A's state,
    /// then read 40 other stores' `state`, had A's read dropped: a publish
    /// of A before the value was read went untold.
    @Test func aHeldReadPushedOutByOtherStoresReadsIsStillTold() {
        let a = makeObservedStore(rows: 10)
        let others = (0..<40).map { _ in makeObservedStore(rows: 1) }
        let fired = Locked(0)
        let toWriter = DispatchSemaphore(value: 0), back = DispatchSemaphore(value: 0)
        let writer = Thread {
            toWriter.wait()
            a.dispatch(.rename(1, "new"))
            back.signal()
        }
        writer.start()
        var seen = ""
        withObservationTracking {
            let first = a.state
            for store in others { _ = store.state.counter }
            toWriter.signal()
            back.wait()
            seen = first.rows[id: 1]?.title ?? ""
        } onChange: {
            fired.withValue { $0 += 1 }
        }
        waitForRenotifications(pending: { others.reduce(a._pendingObservationRenotifications) { $0 + $1._pendingObservationRenotifications } }) {
            fired.withValue { $0 } > 0
        }
        #expect(seen == "row 1")
        #expect(fired.withValue { $0 } >= 1, "the tracking read an old title of A and was never told")
    }
}
