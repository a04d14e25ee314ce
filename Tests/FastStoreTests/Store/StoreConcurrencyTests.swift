@_spi(Testing) import FastStore
import Foundation
import Testing

enum CounterAction: Sendable { case increment, add(Int) }

func counterReducer(_ state: inout Int, _ action: CounterAction) {
    switch action {
    case .increment: state += 1
    case .add(let n): state += n
    }
}

/// Runs `body(thread)` on `count` threads at once and waits for all of them.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for t in 0..<count {
        group.enter()
        let thread = Thread {
            body(t)
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    group.wait()
}

/// Suites named `Concurrency` run under ThreadSanitizer in CI
/// (`swift test --sanitize=thread --filter Concurrency`).
@Suite struct StoreConcurrencyTests {
    @Test func fourThreadsTimesQuarterMillionIncrementsEndAtOneMillion() async {
        let store = Store<Int, CounterAction>(state: 0, reducer: counterReducer)
        let perThread = 250_000
        onThreads(4) { _ in
            for _ in 0..<perThread { store.dispatch(.increment) }
        }
        await store.flush()
        #expect(store.state == 1_000_000)
        #expect(store.dispatchedCount == 1_000_000)
    }

    @Test func concurrentDispatchersWithSubscribersLoseNothingAndNotifyInOrder() async {
        let store = Store<Int, CounterAction>(state: 0, reducer: counterReducer)
        let seen = Locked<[Int]>([])
        let subscription = store.subscribe { state in seen.withValue { $0.append(state) } }
        onThreads(4) { t in
            for i in 0..<5_000 { store.dispatch(.add(t * 10 + i % 3 + 1)) }
        }
        await store.flush()
        let expected = (0..<4).reduce(0) { sum, t in sum + (0..<5_000).reduce(0) { $0 + t * 10 + $1 % 3 + 1 } }
        #expect(store.state == expected)
        let states = seen.withValue { $0 }
        #expect(states.last == expected, "the last notification carries the final state")
        #expect(states == states.sorted(), "notifications arrive in publication order (drains never overlap)")
        #expect(states.count <= 20_000)
        subscription.cancel()
    }

    @Test func flushFromManyTasksWaitsForEveryEarlierDispatch() async {
        let store = Store<Int, CounterAction>(state: 0, reducer: counterReducer)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<1_000 { store.dispatch(.increment) }
                    await store.flush()
                }
            }
        }
        #expect(store.state == 8_000)
    }

    @Test func subscribingOneObjectFromManyThreadsAtOnceRegistersItOnce() {
        final class Screen: StoreSubscriber, @unchecked Sendable {
            let calls = Locked(0)
            func newState(state: Int) { calls.withValue { $0 += 1 } }
        }
        for _ in 0..<50 {
            let store = Store<Int, CounterAction>(state: 0, reducer: counterReducer)
            let screen = Screen()
            onThreads(8) { _ in store.subscribe(screen) }
            #expect(store.subscriberCount == 1)
            store.dispatch(.increment)
            #expect(screen.calls.withValue { $0 } == 1, "called once per batch, not once per subscribe call")
        }
    }

    @Test func unsubscribingFromAnotherThreadDuringNotificationsIsSafe() async {
        let store = Store<Int, CounterAction>(state: 0, reducer: counterReducer)
        let calls = Locked(0)
        let subscriptions = Locked<[StoreSubscription]>([])
        for _ in 0..<16 {
            let s = store.subscribe { _ in calls.withValue { $0 += 1 } }
            subscriptions.withValue { $0.append(s) }
        }
        onThreads(2) { t in
            if t == 0 {
                for _ in 0..<20_000 { store.dispatch(.increment) }
            } else {
                for _ in 0..<16 {
                    let s = subscriptions.withValue { $0.removeLast() }
                    s.cancel()
                }
            }
        }
        await store.flush()
        #expect(store.state == 20_000)
        #expect(store.subscriberCount == 0)
        let before = calls.withValue { $0 }
        store.dispatch(.increment)
        #expect(calls.withValue { $0 } == before, "cancelled subscribers are not called again")
    }
}

/// A value behind a lock, for test bookkeeping across threads.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withValue<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
