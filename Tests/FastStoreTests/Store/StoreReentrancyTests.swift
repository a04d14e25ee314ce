import FastStore
import Foundation
import Testing

/// Lets a reducer reach its own store, as app code does through a global.
final class StoreRef<S, A>: @unchecked Sendable {
    weak var store: Store<S, A>?
}

@Suite struct StoreReentrancyTests {
    @Test func dispatchFromTheReducerIsQueuedAndReducedInOrder() {
        let ref = StoreRef<[String], String>()
        let store = Store<[String], String>(state: []) { state, action in
            state.append(action)
            // A reducer path that dispatches (through app code holding the store).
            if action == "a" {
                ref.store?.dispatch("a.1")
                ref.store?.dispatch("a.2")
            }
            if action == "a.1" { ref.store?.dispatch("a.1.1") }
        }
        ref.store = store
        store.dispatch("a")
        store.dispatch("b")
        #expect(store.state == ["a", "a.1", "a.2", "a.1.1", "b"])
    }

    @Test func dispatchFromASubscriberIsQueuedAndReducedInOrder() {
        let store = Store<[Int], Int>(state: []) { state, action in state.append(action) }
        var notified: [[Int]] = []
        let subscription = store.subscribe { state in
            notified.append(state)
            if state.last == 1 {
                store.dispatch(2)
                store.dispatch(3)
                // Not reduced yet: queued behind the current notification.
                #expect(store.state == [1])
            }
        }
        store.dispatch(1)
        #expect(store.state == [1, 2, 3])
        #expect(notified == [[1], [1, 2, 3]], "the two re-entrant actions form one batch")
        subscription.cancel()
    }

    @Test func flushFromInsideTheDrainIsAPreconditionNotADeadlock() async {
        // Documented as a precondition failure; here we only check the
        // ordinary case does not trip it: flush after a drain finished.
        let store = Store<Int, Int>(state: 0) { $0 += $1 }
        store.dispatch(1)
        await store.flush()
        store.waitUntilIdle()
        #expect(store.state == 1)
    }

    @Test func aBurstDuringADrainIsCoalescedAndTheLastNotificationIsFinal() async {
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let store = Store<Int, Int>(state: 0) { state, action in
            if action == -1 {
                entered.signal()
                gate.wait()  // hold the drain open while the burst arrives
            } else {
                state += action
            }
        }
        let notifications = Locked<[Int]>([])
        let subscription = store.subscribe { state in notifications.withValue { $0.append(state) } }
        let drainer = Thread { store.dispatch(-1) }
        drainer.start()
        entered.wait()
        for _ in 0..<1_000 { store.dispatch(1) }  // queued: a drain is running
        gate.signal()
        await store.flush()
        let seen = notifications.withValue { $0 }
        #expect(store.state == 1_000)
        #expect(seen.last == 1_000)
        #expect(seen.count < 1_000, "1,000 queued actions are reduced in few batches, got \(seen.count) notifications")
        #expect(seen.count <= 2)
        subscription.cancel()
    }

    @Test func aSubscriberCancellingAnotherDuringANotificationStopsIt() {
        let store = Store<Int, Int>(state: 0) { $0 += $1 }
        var calls: [String] = []
        var second: StoreSubscription?
        let first = store.subscribe { _ in
            calls.append("first")
            second?.cancel()
        }
        second = store.subscribe { _ in calls.append("second") }
        store.dispatch(1)
        store.dispatch(1)
        #expect(calls == ["first", "first"])
        first.cancel()
    }

    @Test func aSubscriberCancellingItselfIsSafe() {
        let store = Store<Int, Int>(state: 0) { $0 += $1 }
        var calls = 0
        var own: StoreSubscription?
        own = store.subscribe { _ in
            calls += 1
            own?.cancel()
        }
        store.dispatch(1)
        store.dispatch(1)
        #expect(calls == 1)
        #expect(store.subscriberCount == 0)
    }
}
