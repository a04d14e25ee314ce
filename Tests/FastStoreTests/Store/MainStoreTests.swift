@_spi(Testing) import FastStore
import FastStoreTestSupport
import Foundation
import Testing

/// `MainStore`: reduced on the main thread, in place; dispatches from other
/// threads queued, batched and drained there in order. (Run under
/// ThreadSanitizer in CI: the suite's name is in `.ci/run`'s filter.)
@Suite struct MainStoreTests {
    enum Event: Sendable, Equatable { case append(Int), appendMany([Int]) }

    static func reduce(_ state: inout [Int], _ event: Event) {
        switch event {
        case .append(let n): state.append(n)
        case .appendMany(let ns): state.append(contentsOf: ns)
        }
    }

    @Test @MainActor func aDispatchOnTheMainThreadIsReducedBeforeItReturns() {
        let store = MainStore<[Int], Event>(state: [], reducer: Self.reduce)
        var published: [[Int]] = []
        let subscription = store.subscribe { published.append($0) }
        store.dispatch(.append(1))
        #expect(store.state == [1])
        store.dispatch(action: .append(2))
        store.dispatch(contentsOf: [.append(3), .append(4)])
        #expect(store.state == [1, 2, 3, 4])
        #expect(published == [[1], [1, 2], [1, 2, 3, 4]], "one publish per dispatch, one for the group")
        subscription.cancel()
    }

    /// Dispatches from another thread while the main thread is busy are
    /// queued, not reduced there, and one scheduled drain reduces them all
    /// as one batch: one publish.
    @Test @MainActor func dispatchesFromAnotherThreadAreBatchedIntoOneDrainOnTheMainThread() async {
        let store = MainStore<[Int], Event>(state: [], reducer: Self.reduce)
        var published: [[Int]] = []
        // NB: reading `state` in the callback checks it runs on the main
        // actor (a precondition of the store).
        let subscription = store.subscribe { state in
            published.append(state)
            #expect(store.state == state)
        }
        // NB: the main thread waits for the other thread here, so nothing
        // can be drained before it returns.
        onThreads(1) { _ in
            for n in 0..<100 { store.dispatch(.append(n)) }
        }
        #expect(published.isEmpty, "queued, not reduced on the dispatching thread")
        await store.flush()
        #expect(store.state == Array(0..<100))
        #expect(published == [Array(0..<100)], "one drain, one publish for the batch")
        subscription.cancel()
    }

    /// A dispatch on the main thread reduces what other threads queued
    /// before it first, then its own action, before it returns.
    @Test @MainActor func aMainThreadDispatchReducesWhatWasQueuedBeforeItFirst() {
        let store = MainStore<[Int], Event>(state: [], reducer: Self.reduce)
        onThreads(1) { _ in
            store.dispatch(.append(1))
            store.dispatch(contentsOf: [.append(2), .append(3)])
        }
        store.dispatch(.append(4))
        #expect(store.state == [1, 2, 3, 4])
    }

    @Test @MainActor func waitUntilIdleOnTheMainThreadReducesWhatOtherThreadsQueued() {
        let store = MainStore<[Int], Event>(state: [], reducer: Self.reduce)
        onThreads(2) { t in
            for n in 0..<50 { store.dispatch(.append(t * 100 + n)) }
        }
        store.waitUntilIdle()
        let state = store.state
        #expect(state.count == 100)
        for t in 0..<2 {
            #expect(state.filter { $0 / 100 == t } == (0..<50).map { t * 100 + $0 }, "each thread's actions in its order")
        }
    }

    /// A dispatch from a subscriber is queued behind the batch and reduced
    /// in the same drain, never re-entrantly.
    @Test @MainActor func aDispatchFromASubscriberIsReducedLaterInTheSameDrain() {
        let store = MainStore<[Int], Event>(state: [], reducer: Self.reduce)
        var seen: [[Int]] = []
        let subscription = store.subscribe { state in
            seen.append(state)
            if state == [1] {
                store.dispatch(.append(2))
                #expect(store.state == [1], "not reduced re-entrantly")
            }
        }
        store.dispatch(.append(1))
        #expect(store.state == [1, 2])
        #expect(seen == [[1], [1, 2]])
        subscription.cancel()
    }

    /// Between two actions of a batch the state may be read: a middleware
    /// dispatching into another store, whose subscriber reads this one,
    /// sees the state reduced so far (it trapped when any read during the
    /// batch was refused).
    @Test @MainActor func aReadBetweenTwoActionsOfABatchSeesTheStateReducedSoFar() {
        let log = Store<[Int], Int>(state: []) { $0.append($1) }
        var main: MainStore<[Int], Event>?
        var seen: [[Int]] = []
        let logged = log.subscribe { _ in seen.append(main!.state) }
        let logging = Middleware<[Int], Event> { _, action, next in
            next(action)
            log.dispatch(1)
        }
        main = MainStore(state: [], reducer: Self.reduce, middleware: [logging])
        main!.dispatch(contentsOf: [.append(1), .append(2)])
        #expect(main!.state == [1, 2])
        #expect(seen == [[1], [1, 2]])
        logged.cancel()
    }

    /// Many threads dispatching while the main thread flushes: every action
    /// is reduced once, each thread's in its order.
    @Test @MainActor func manyThreadsDispatchingLoseNothing() async {
        let store = MainStore<[Int], Event>(state: [], reducer: Self.reduce)
        let notified = Locked(0)
        let subscription = store.subscribe { _ in notified.withValue { $0 += 1 } }
        let threads = 4, perThread = 2_000
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                onThreads(threads) { t in
                    for n in 0..<perThread {
                        if n % 10 == 0 {
                            store.dispatch(contentsOf: [.append(t * perThread + n)])
                        } else {
                            store.dispatch(.append(t * perThread + n))
                        }
                    }
                }
                done.resume()
            }.start()
        }
        await store.flush()
        let state = store.state
        #expect(state.count == threads * perThread)
        for t in 0..<threads {
            let mine = state.filter { $0 / perThread == t }
            #expect(mine == (0..<perThread).map { t * perThread + $0 })
        }
        #expect(notified.withValue { $0 } >= 1)
        subscription.cancel()
    }

    /// In-place writes never reach a value someone kept: a state read
    /// before a dispatch, and the `old` a subscriber kept, still hold what
    /// they held.
    @Test @MainActor func aKeptStateIsNotWrittenByLaterDispatches() {
        var rng = SeededGenerator(seed: 0x4D41_494E)
        let store = MainStore<TreeState, TreeStep>(state: TreeGen.state(&rng)) { state, step in step.apply(&state) }
        // NB: a description is a snapshot that shares no node with the state.
        var kept: [(TreeState, String)] = []
        let subscription = store.subscribe { kept.append(($0, String(describing: $0))) }
        var before: [(TreeState, String)] = []
        for step in 0..<300 {
            // Kept a while, then let go: later writes then find the nodes
            // unique again and write them in place.
            let state = store.state
            if step % 3 == 0 { before.append((state, String(describing: state))) }
            if before.count > 20 { before.removeFirst() }
            var local = SeededGenerator(seed: rng.next())
            store.dispatch(TreeStep { _ = TreeGen.mutate(&$0, history: [], &local) })
            if kept.count > 20 { kept.removeFirst() }
        }
        #expect(Set((before + kept).map(\.1)).count > 10, "the dispatches changed the state")
        for (value, snapshot) in before + kept {
            #expect(String(describing: value) == snapshot)
        }
        subscription.cancel()
    }
}

/// One step of a `TreeState` reducer: a closure (the tests' random
/// mutations).
struct TreeStep: @unchecked Sendable {
    let apply: (inout TreeState) -> Void
}
