@_spi(Testing) import FastStore
import FastStoreTestSupport
import Foundation
import Testing

/// Many iterators of a store's sequences while four threads dispatch.
/// (Suites named `Concurrency` run under ThreadSanitizer in CI.)
@Suite struct StoreSequenceConcurrencyTests {
    static let perThread = 2_000
    static let threads = 4

    /// Four threads dispatch `.add(1)` `perThread` times each.
    static func dispatchFromFourThreads(_ store: Store<SeqApp, SeqAction>) async {
        await onOwnThread {
            onThreads(threads) { t in
                for i in 0..<perThread {
                    store.dispatch(.add(1))
                    if i % 200 == 0 { store.dispatch(.toggle(t)) }
                }
            }
        }
    }

    @Test func everyIteratorEndsWithTheFinalStateUnlessCancelled() async {
        let store = makeSeqStore()
        let total = Self.threads * Self.perThread
        var rng = SeededGenerator.fromEnvironment(fallback: 0x5E0_5EED)
        // Which iterators cancel themselves, and after how many elements.
        let plans: [Int?] = (0..<32).map { _ in Bool.random(using: &rng) ? nil : Int.random(in: 1...40, using: &rng) }
        let delays = (0..<8).map { _ in Int.random(in: 0...20, using: &rng) }
        let seed = rng.seed
        let results = Locked<[Int: (last: Int?, cancelled: Bool)]>([:])
        await withWatchdog {
        await withTaskGroup(of: Void.self) { group in
            for (index, plan) in plans.enumerated() {
                group.addTask {
                    var last: Int?
                    var count = 0
                    if index % 2 == 0 {
                        for await state in store.states {
                            if let last, state.counter < last {
                                Issue.record("iterator \(index): \(state.counter) after \(last)")
                            }
                            last = state.counter
                            count += 1
                            if state.counter == total { break }
                            if count == plan { withUnsafeCurrentTask { $0?.cancel() } }
                        }
                    } else {
                        for await counter in store.values({ $0.counter }) {
                            last = counter
                            count += 1
                            if counter == total { break }
                            if count == plan { withUnsafeCurrentTask { $0?.cancel() } }
                        }
                    }
                    results.withValue { $0[index] = (last, Task.isCancelled) }
                }
            }
            // Externally cancelled iterators, at random points.
            for delay in delays {
                let task = Task {
                    for await _ in store.changes(of: { $0.counter }) {}
                }
                group.addTask {
                    try? await Task.sleep(for: .milliseconds(delay))
                    task.cancel()
                    await task.value
                }
            }
            group.addTask { await Self.dispatchFromFourThreads(store) }
        }
        }
        await store.flush()
        #expect(store.state.counter == total)
        let outcome = results.withValue { $0 }
        #expect(outcome.count == plans.count)
        for (index, plan) in plans.enumerated() where plan == nil {
            #expect(outcome[index]?.last == total, "iterator \(index) ended with the final state (seed \(seed))")
        }
        for (index, plan) in plans.enumerated() where plan != nil {
            let result = outcome[index]
            #expect(result?.cancelled == true || result?.last == total, "iterator \(index) ended by its cancellation or the final state")
        }
        #expect(await eventually { store.subscriberCount == 0 }, "every iteration unsubscribed")
    }

    @Test func changeSequencesStartedDuringTheDispatchesLoseNoCause() async {
        let store = makeSeqStore()
        let total = Self.threads * Self.perThread
        let mismatches = Locked<[String]>([])
        await withWatchdog {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await Self.dispatchFromFourThreads(store) }
            for index in 0..<24 {
                group.addTask {
                    // Start at staggered moments, some while a batch is being
                    // reduced on another thread.
                    try? await Task.sleep(for: .microseconds(index * 300))
                    var counter: Int?
                    for await change in store.stateChanges {
                        let added = change.actions.reduce(0) { sum, action in
                            if case .add(let n) = action { sum + n } else { sum }
                        }
                        if let counter, counter + added != change.state.counter {
                            mismatches.withValue { $0.append("iterator \(index): \(counter) + \(added) != \(change.state.counter)") }
                        }
                        counter = change.state.counter
                        if change.state.counter == total { break }
                    }
                }
            }
        }
        }
        #expect(mismatches.withValue { $0 } == [], "each element's actions account exactly for its change")
        #expect(store._causeReceiverCount == 0)
        #expect(await eventually { store.subscriberCount == 0 })
    }

    @Test func changeSubscribersComingAndGoingDuringTheDispatchesSeeExactCauses() async {
        let store = makeSeqStore()
        let total = Self.threads * Self.perThread
        let mismatches = Locked<Int>(0)
        let checked = Locked<Int>(0)
        let dispatchersDone = Locked<Int>(0)
        let subscriptions = Locked<Int>(0)
        await onOwnThread {
            onThreads(Self.threads + 1) { t in
                if t < Self.threads {
                    // NB: the dispatchers start once the first subscriber
                    // is in, so that at least one sees several changes
                    // however the threads are scheduled (a loaded machine
                    // could otherwise run every dispatch before it).
                    while subscriptions.withValue({ $0 }) == 0 { sched_yield() }
                    for _ in 0..<Self.perThread { store.dispatch(.add(1)) }
                    dispatchersDone.withValue { $0 += 1 }
                    return
                }
                // Subscribe, keep the subscription for a random while (or
                // until it saw three changes), cancel; again, until the
                // dispatchers are done. The first subscription waits for
                // its three changes.
                var rng = SeededGenerator.fromEnvironment(fallback: 0xCA05E5)
                var first = true
                while dispatchersDone.withValue({ $0 }) < Self.threads {
                    let seen = Locked(0)
                    let last = Locked<Int?>(nil)
                    let subscription = store.subscribeChanges { change in
                        let added = change.actions.count { if case .add = $0 { true } else { false } }
                        last.withValue { previous in
                            if let before = previous {
                                checked.withValue { $0 += 1 }
                                if before + added != change.state.counter { mismatches.withValue { $0 += 1 } }
                            }
                            previous = change.state.counter
                        }
                        seen.withValue { $0 += 1 }
                    }
                    subscriptions.withValue { $0 += 1 }
                    let patience = first ? Int.max : Int.random(in: 0..<200, using: &rng)
                    first = false
                    var waited = 0
                    while waited < patience && seen.withValue({ $0 }) < 3 && dispatchersDone.withValue({ $0 }) < Self.threads {
                        sched_yield()
                        waited += 1
                    }
                    subscription.cancel()
                }
            }
        }
        await store.flush()
        #expect(store.state.counter == total)
        #expect(mismatches.withValue { $0 } == 0)
        #expect(checked.withValue { $0 } > 0, "some of the \(subscriptions.withValue { $0 }) subscribers saw two changes or more")
        #expect(store._causeReceiverCount == 0)
        #expect(store.subscriberCount == 0)
    }
}

/// Runs `body` in a task cancelled after `seconds`: an iterator that never
/// gets the final state fails the test instead of hanging it.
private func withWatchdog(seconds: Int = 60, _ body: @escaping @Sendable () async -> Void) async {
    let work = Task { await body() }
    let watchdog = Task {
        try? await Task.sleep(for: .seconds(seconds))
        work.cancel()
    }
    await work.value
    watchdog.cancel()
}
