import FastStore
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
