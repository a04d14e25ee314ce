import Atomics
import Dispatch
@_spi(Testing) import FastStoreReSwift
import Testing

// Where ReSwift stops the program (an action dispatched while a reducer
// runs, from the reducer or another thread), the facade queues the action.
// Dispatch from a subscriber is queued behind the current notification.

private struct Count: Equatable { var value = 0 }
private struct Increase: Action {}
private struct Add: Action { let amount: Int }

private func countReducer(action: Action, state: Count?) -> Count {
    var state = state ?? Count()
    if action is Increase { state.value += 1 }
    if let add = action as? Add { state.value += add.amount }
    return state
}

/// Records the values it receives and fails if it is ever entered twice at
/// once.
private final class SerialRecorder: StoreSubscriber, @unchecked Sendable {
    // NB: `@unchecked Sendable`: `values` is written only inside
    // `newState`, which the store never runs concurrently with itself (the
    // `inside` flag checks it); it is read after the writers are done.
    private let inside = ManagedAtomic<Bool>(false)
    let overlaps = ManagedAtomic<Int>(0)
    var values: [Int] = []

    func newState(state: Int) {
        if inside.exchange(true, ordering: .acquiring) { overlaps.wrappingIncrement(ordering: .relaxed) }
        values.append(state)
        inside.store(false, ordering: .releasing)
    }
}

private final class Recorder: StoreSubscriber {
    var values: [Int] = []
    var onNewState: (Int) -> Void = { _ in }
    func newState(state: Int) {
        values.append(state)
        onNewState(state)
    }
}

/// Lets a reducer reach the store it belongs to.
private final class StoreReference: @unchecked Sendable {
    weak var store: Store<Count>?
}

@Suite struct ReentrancyAndThreadsTests {
    @Test func dispatchFromAReducerIsQueuedNotFatal() {
        let reference = StoreReference()
        var reduced: [String] = []
        let store = Store<Count>(reducer: { action, state in
            reduced.append(action is Add ? "add" : "\(type(of: action))")
            if action is Increase {
                reference.store?.dispatch(Add(amount: 10))   // ReSwift: fatal error
            }
            return countReducer(action: action, state: state)
        }, state: Count())
        reference.store = store
        let recorder = Recorder()
        store.subscribe(recorder) { $0.select(\.value) }

        store.dispatch(Increase())
        #expect(store.state.value == 11, "the queued action is reduced before dispatch returns")
        #expect(reduced == ["Increase", "add"], "after the action being reduced, not inside it")
        #expect(recorder.values == [0, 1, 11])
    }

    @Test func dispatchFromASubscriberIsQueuedBehindTheNotification() {
        let store = Store<Count>(reducer: countReducer, state: Count())
        let first = Recorder()
        let second = Recorder()
        var seenInside: Int?
        first.onNewState = { value in
            guard value == 1 else { return }
            store.dispatch(Increase())
            seenInside = store.state.value
        }
        store.subscribe(first) { $0.select(\.value) }
        store.subscribe(second) { $0.select(\.value) }

        store.dispatch(Increase())
        #expect(seenInside == 1, "queued: the subscriber's own dispatch is not reduced inside it")
        #expect(second.values == [0, 1, 2], "every subscriber sees 1 before anyone sees 2")
        #expect(first.values == [0, 1, 2])
        #expect(store.state.value == 2)
    }

    @Test func dispatchFromTheFirstDeliveryIsDeliveredAfterIt() {
        // ReSwift's `DispatchingSubscriber`: it dispatches from the state it
        // gets on subscribing, outside any reduction.
        let store = Store<Count>(reducer: countReducer, state: Count())
        let recorder = Recorder()
        recorder.onNewState = { value in
            if value == 0 { store.dispatch(Add(amount: 5)) }
        }
        store.subscribe(recorder) { $0.select(\.value) }
        #expect(store.state.value == 5)
        #expect(recorder.values == [0, 5], "the subscriber is not re-entered: 5 comes after 0 returns")
    }

    @Test func unsubscribingFromInsideNewStateStopsAtOnce() {
        let store = Store<Count>(reducer: countReducer, state: Count())
        let recorder = Recorder()
        recorder.onNewState = { [unowned recorder] value in
            if value == 1 { store.unsubscribe(recorder) }
        }
        store.subscribe(recorder) { $0.select(\.value) }
        store.dispatch(Increase())
        store.dispatch(Increase())
        #expect(recorder.values == [0, 1])
        #expect(store._subscriptionCount == 0)
    }

    @Test func dispatchFromManyThreadsLosesNothingAndNeverOverlaps() {
        let store = Store<Count>(reducer: countReducer, state: Count())
        let recorder = SerialRecorder()
        store.subscribe(recorder) { $0.select(\.value) }
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<500 { store.dispatch(Increase()) }
        }
        #expect(store.state.value == 2_000)
        #expect(recorder.overlaps.load(ordering: .relaxed) == 0)
        #expect(recorder.values.last == 2_000)
        #expect(recorder.values == recorder.values.sorted() && Set(recorder.values).count == recorder.values.count,
                "each state once, in order")
    }

    @Test func subscribingWhileAnotherThreadDispatches() {
        let store = Store<Count>(reducer: countReducer, state: Count())
        let recorders = (0..<40).map { _ in SerialRecorder() }
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for _ in 0..<2_000 { store.dispatch(Increase()) }
            done.signal()
        }
        for recorder in recorders {
            store.subscribe(recorder) { $0.select(\.value) }
        }
        done.wait()
        for recorder in recorders {
            #expect(recorder.overlaps.load(ordering: .relaxed) == 0)
            #expect(recorder.values.last == 2_000, "every subscriber ends at the last state")
            let increasing = zip(recorder.values, recorder.values.dropFirst()).allSatisfy { $0 < $1 }
            #expect(increasing, "no state twice, none out of order")
        }
    }
}
