@_spi(Testing) import FastStore
import Foundation
import Testing

/// `store.values { … }` and `store.changes(of:)`: a selection, decided by a
/// `StateConsumer`.
@Suite struct StoreValuesTests {
    @Test func theCurrentSelectionComesFirstThenOnlyItsChanges() async {
        let store = makeSeqStore()
        var iterator = store.values { $0.todos[id: 3] }.makeAsyncIterator()
        #expect(await iterator.next() == SeqTodo(id: 3, title: "todo 3"))
        store.dispatch(.toggle(5))
        store.dispatch(.setFilter("done"))
        store.dispatch(.add(1))
        store.dispatch(.rename(3, "three"))
        #expect(await iterator.next() == SeqTodo(id: 3, title: "three"), "the other dispatches yielded nothing")
        store.dispatch(.toggle(3))
        #expect(await iterator.next() == SeqTodo(id: 3, title: "three", done: true))
    }

    @Test func onVersionedStateTheSelectorRunsOnlyAfterDrainsThatWroteWhatItRead() async {
        let store = makeSeqStore(rows: 1_000)
        let runs = RunCounter()
        var iterator = store.values { state -> Bool? in
            runs.tick()
            return state.todos[id: 3]?.done
        }.makeAsyncIterator()
        #expect(await iterator.next() == false)
        #expect(runs.value == 1)
        for id in 4..<104 { store.dispatch(.toggle(id)) }
        store.dispatch(.setFilter("done"))
        store.dispatch(.add(5))
        // NB: the sequence's consumer is fed on the draining thread, and the
        // store's own change log holds its drains: exact counts.
        #expect(runs.value == 1, "the drains' writes were found by the stamps: the selector ran \(runs.value) times, not 103")
        store.dispatch(.toggle(3))
        #expect(await iterator.next() == true)
        #expect(runs.value == 2)
    }

    @Test func onPlainStateSelectionsAreCompared() async {
        let store = Store<PlainPair, PlainPairAction>(state: PlainPair(), reducer: plainPairReducer)
        let runs = RunCounter()
        var iterator = store.values { state -> Int in
            runs.tick()
            return state.left
        }.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        store.dispatch(.right)
        store.dispatch(.right)
        store.dispatch(.left)
        #expect(await iterator.next() == 1, "the right-hand changes yielded nothing")
        #expect(runs.value == 4, "plain state: the selector runs at every batch")
        store.dispatch(.left)
        #expect(await iterator.next() == 2)
    }

    @Test func changesCarryThePreviouslyDeliveredValue() async {
        let store = makeSeqStore()
        var iterator = store.changes(of: { $0.todos[id: 3]?.done }).makeAsyncIterator()
        #expect(await iterator.next() == SelectionChange(previous: nil, value: false))
        store.dispatch(.toggle(3))
        #expect(await iterator.next() == SelectionChange(previous: false, value: true))
        store.dispatch(.add(1))
        store.dispatch(.rename(3, "three"))  // the selection (`done`) is unchanged
        store.dispatch(.toggle(3))
        #expect(await iterator.next() == SelectionChange(previous: true, value: false))
    }

    @Test func aSkippedSelectionIsThePreviousOneAcrossSkips() async {
        let store = Store<Int, CounterAction>(state: 0, reducer: counterReducer)
        var iterator = store.changes(of: { $0 }).makeAsyncIterator()
        #expect(await iterator.next() == SelectionChange(previous: nil, value: 0))
        for _ in 0..<10 { store.dispatch(.increment) }
        #expect(await iterator.next() == SelectionChange(previous: 0, value: 10), "previous is what this iterator last got")
    }

    @Test func aSelectionThatCameBackWhileTheIteratorWasAwayIsNoChange() async {
        let store = makeSeqStore()
        var iterator = store.changes(of: { $0.todos[id: 3]?.done }).makeAsyncIterator()
        #expect(await iterator.next()?.value == false)
        store.dispatch(.toggle(3))
        store.dispatch(.toggle(3))  // false → true → false, before the iterator looks
        store.dispatch(.setFilter("done"))
        store.dispatch(.toggle(3))
        #expect(await iterator.next() == SelectionChange(previous: false, value: true), "no (false, false) element")
    }

    @Test func cancellingEndsTheIterationAndUnsubscribes() async {
        let store = makeSeqStore()
        let received = Locked<[Bool?]>([])
        let task = Task {
            for await done in store.values({ $0.todos[id: 1]?.done }) { received.withValue { $0.append(done) } }
        }
        #expect(await eventually { received.withValue { $0 } == [false] })
        try? await Task.sleep(for: .milliseconds(20))
        task.cancel()
        await task.value
        #expect(store.subscriberCount == 0)
        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var iterator = store.changes(of: { $0.counter }).makeAsyncIterator()
            return await iterator.next()
        }
        #expect(await cancelledFirst.value == nil)
        #expect(store.subscriberCount == 0)
    }

    @Test func theIterationEndsWhenTheStoreIsDeallocatedAndLeaksNothing() async {
        var store: Store<SeqApp, SeqAction>? = makeSeqStore()
        weak var weakStore: Store<SeqApp, SeqAction>?
        weakStore = store
        let values = store!.values { $0.counter }
        let received = Locked<[Int]>([])
        let task = Task {
            for await counter in values { received.withValue { $0.append(counter) } }
            return "ended"
        }
        #expect(await eventually { received.withValue { $0 } == [0] })
        store!.dispatch(.add(2))
        #expect(await eventually { received.withValue { $0 } == [0, 2] })
        store = nil
        #expect(weakStore == nil, "neither the sequence nor its consumer keeps the store")
        #expect(await task.value == "ended")
    }

    @Test func breakingOutOfTheLoopUnsubscribes() async {
        let store = makeSeqStore()
        for await counter in store.values({ $0.counter }) {
            if counter == 0 { break }
        }
        #expect(store.subscriberCount == 0)
        do {
            var iterator = store.changes(of: { $0.filter }).makeAsyncIterator()
            _ = await iterator.next()
            #expect(store.subscriberCount == 1)
        }
        #expect(store.subscriberCount == 0, "a dropped iterator unsubscribes")
    }
}
