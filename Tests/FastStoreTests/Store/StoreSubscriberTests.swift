import FastStore
import Foundation
import Testing

final class CounterScreen: StoreSubscriber {
    var received: [Int] = []
    var onDeinit: (() -> Void)?
    func newState(state: Int) { received.append(state) }
    deinit { onDeinit?() }
}

@Suite struct StoreSubscriberTests {
    /// A cancelled subscription lets go of its subscriber's closure, so a
    /// subscriber that keeps and cancels its own subscription (a one-shot
    /// subscriber) does not keep what it captured alive.
    @Test func aSubscriberCancellingItsOwnSubscriptionIsReleased() {
        final class Probe {}
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
        #expect(store.subscriberCount == 0)
        #expect(weakProbe == nil, "the cancelled subscription still holds its subscriber's closure")
    }

    @Test func subscribersAreCalledInSubscriptionOrderAfterPublishing() {
        let store = Store<Int, Int>(state: 0) { $0 += $1 }
        var log: [String] = []
        let a = store.subscribe { state in log.append("a\(state) sees \(store.state)") }
        let b = store.subscribe { state in log.append("b\(state)") }
        store.dispatch(5)
        #expect(log == ["a5 sees 5", "b5"])
        a.cancel()
        b.cancel()
    }

    @Test func releasingTheTokenUnsubscribes() {
        let store = Store<Int, Int>(state: 0) { $0 += $1 }
        var calls = 0
        do {
            let token = store.subscribe { _ in calls += 1 }
            store.dispatch(1)
            _ = token
        }
        store.dispatch(1)
        #expect(calls == 1)
        #expect(store.subscriberCount == 0)
    }

    @Test func objectSubscribersAreHeldWeaklyAndNotCalledOnceReleased() {
        let store = Store<Int, Int>(state: 0) { $0 += $1 }
        weak var weakScreen: CounterScreen?
        var deinited = false
        do {
            let screen = CounterScreen()
            screen.onDeinit = { deinited = true }
            weakScreen = screen
            store.subscribe(screen)
            store.subscribe(screen)  // a second subscribe of the same object does nothing
            store.dispatch(1)
            store.dispatch(2)
            #expect(screen.received == [1, 3])
        }
        #expect(deinited, "the store must not retain an object subscriber")
        #expect(weakScreen == nil)
        store.dispatch(3)  // must not crash nor call the released subscriber
        #expect(store.subscriberCount == 0)
        #expect(store.state == 6)
    }

    @Test func unsubscribeStopsAnObjectSubscriber() {
        let store = Store<Int, Int>(state: 0) { $0 += $1 }
        let screen = CounterScreen()
        store.subscribe(screen)
        store.dispatch(1)
        store.unsubscribe(screen)
        store.dispatch(1)
        #expect(screen.received == [1])
    }

    @Test func anObjectSubscriberReleasedDuringANotificationIsSafe() {
        let store = Store<Int, Int>(state: 0) { $0 += $1 }
        var screen: CounterScreen? = CounterScreen()
        store.subscribe(screen!)
        let killer = store.subscribe { _ in screen = nil }
        store.dispatch(1)
        store.dispatch(1)
        #expect(screen == nil)
        #expect(store.state == 2)
        killer.cancel()
    }

    @MainActor
    @Test func mainThreadSubscriptionsRunOnTheMainThread() async throws {
        let store = Store<Int, Int>(state: 0) { $0 += $1 }
        // NB: on Linux the test harness services the main queue from a thread
        // that is not the process's first thread, so "main" is checked as
        // "on the main dispatch queue", which is what `.main` promises.
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        let seen = Locked<[(Int, Bool)]>([])
        let token = store.subscribe(on: .main) { state in
            seen.withValue { $0.append((state, DispatchQueue.getSpecific(key: key) == true)) }
        }
        // Dispatch from a background thread; delivery hops to main.
        await Task.detached {
            for _ in 0..<100 { store.dispatch(1) }
        }.value
        for _ in 0..<200 where seen.withValue({ $0.last?.0 }) != 100 {
            try await Task.sleep(for: .milliseconds(5))
        }
        let calls = seen.withValue { $0 }
        #expect(calls.last?.0 == 100, "the last main-thread notification carries the final state")
        #expect(calls.allSatisfy { $0.1 }, "every call ran on the main queue")
        #expect(calls.count <= 100)
        token.cancel()
    }
}
