@_spi(Testing) import FastStore
import Foundation
import Testing

/// `store.states`: the current state, then the latest published one.
@Suite struct StoreStatesTests {
    @Test func theFirstElementIsTheCurrentState() async {
        let store = Store<Int, CounterAction>(state: 7, reducer: counterReducer)
        store.dispatch(.add(3))
        var iterator = store.states.makeAsyncIterator()
        #expect(await iterator.next() == 10)
        #expect(store.subscriberCount == 1, "subscribed on the first next()")
    }

    @Test func eachIteratorSubscribesOnItsFirstNext() async {
        let store = Store<Int, CounterAction>(state: 0, reducer: counterReducer)
        let states = store.states
        var first = states.makeAsyncIterator()
        var second = states.makeAsyncIterator()
        #expect(store.subscriberCount == 0, "making a sequence or an iterator subscribes nothing")
        #expect(await first.next() == 0)
        store.dispatch(.increment)
        #expect(await second.next() == 1, "an iterator starts at the state current at its first next()")
        #expect(await first.next() == 1)
        store.dispatch(.increment)
        #expect(await first.next() == 2)
        #expect(await second.next() == 2, "iterators are independent")
        #expect(store.subscriberCount == 2)
    }

    @Test func aPublishedStateFollowsTheCurrentOne() async {
        let store = Store<Int, CounterAction>(state: 0, reducer: counterReducer)
        var iterator = store.states.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        for expected in 1...20 {
            store.dispatch(.increment)
            #expect(await iterator.next() == expected)
        }
    }

    @Test func anIteratorThatFallsBehindGetsTheLatestState() async {
        let store = Store<Int, CounterAction>(state: 0, reducer: counterReducer)
        var iterator = store.states.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        for _ in 0..<100 { store.dispatch(.increment) }
        #expect(await iterator.next() == 100, "the states in between were skipped")
    }

    @Test func aSleepingConsumerSkipsStatesButEndsWithTheLast() async {
        let store = Store<Int, CounterAction>(state: 0, reducer: counterReducer)
        let consumer = Task {
            var seen: [Int] = []
            for await state in store.states {
                seen.append(state)
                if state == 200 { break }
                try? await Task.sleep(for: .milliseconds(5))
            }
            return seen
        }
        #expect(await eventually { store.subscriberCount == 1 })
        for _ in 0..<200 {
            store.dispatch(.increment)
            try? await Task.sleep(for: .microseconds(200))
        }
        let seen = await consumer.value
        #expect(seen.last == 200)
        #expect(seen.count < 201, "a slow consumer skips states: got \(seen.count)")
        #expect(seen == seen.sorted() && Set(seen).count == seen.count, "in publication order, no repeats")
        #expect(store.subscriberCount == 0, "breaking out of the loop unsubscribes")
    }

    @Test func cancellingTheTaskBeforeTheFirstNextEndsAtOnce() async {
        let store = Store<Int, CounterAction>(state: 0, reducer: counterReducer)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var iterator = store.states.makeAsyncIterator()
            let first = await iterator.next()
            let second = await iterator.next()
            return (first, second)
        }
        let (first, second) = await task.value
        #expect(first == nil && second == nil)
        #expect(store.subscriberCount == 0, "a cancelled task never subscribes")
    }

    @Test func cancellingTheTaskWhileItWaitsInNextEndsTheIteration() async {
        let store = Store<Int, CounterAction>(state: 0, reducer: counterReducer)
        let received = Locked<[Int]>([])
        let task = Task {
            for await state in store.states { received.withValue { $0.append(state) } }
            return received.withValue { $0 }
        }
        #expect(await eventually { received.withValue { $0 } == [0] })
        // Give the task time to suspend in next().
        try? await Task.sleep(for: .milliseconds(20))
        task.cancel()
        #expect(await task.value == [0])
        #expect(store.subscriberCount == 0, "the subscription ends with the iteration")
        store.dispatch(.increment)
        #expect(received.withValue { $0 } == [0])
    }

    @Test func anIteratorEndsWhenTheStoreIsDeallocated() async {
        var store: Store<Int, CounterAction>? = Store(state: 0, reducer: counterReducer)
        weak var weakStore: Store<Int, CounterAction>?
        weakStore = store
        let states = store!.states
        let received = Locked<[Int]>([])
        let task = Task {
            for await state in states { received.withValue { $0.append(state) } }
            return "ended"
        }
        #expect(await eventually { received.withValue { $0 } == [0] })
        store!.dispatch(.increment)
        #expect(await eventually { received.withValue { $0 } == [0, 1] })
        store = nil
        #expect(weakStore == nil, "the sequence holds the store weakly")
        #expect(await task.value == "ended")
    }

    @Test func aSequenceOfAGoneStoreIsEmpty() async {
        var store: Store<Int, CounterAction>? = Store(state: 0, reducer: counterReducer)
        let states = store!.states
        store = nil
        var iterator = states.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }

    @Test func droppingAnIteratorUnsubscribesAndLeaksNothing() async {
        var store: Store<Int, CounterAction>? = Store(state: 0, reducer: counterReducer)
        weak var weakStore: Store<Int, CounterAction>?
        weakStore = store
        do {
            var iterator = store!.states.makeAsyncIterator()
            _ = await iterator.next()
            store!.dispatch(.increment)
            #expect(store!.subscriberCount == 1)
        }
        #expect(store!.subscriberCount == 0, "the dropped iterator's subscription is gone")
        for await state in store!.states {
            if state == 1 { break }
        }
        #expect(store!.subscriberCount == 0)
        store = nil
        #expect(weakStore == nil, "nothing of an iteration keeps the store")
    }

    @Test func nonSendableStatesAreIterableFromAnActor() async {
        // NB: a store of non-`Sendable` state is not `Sendable`: the actor
        // that iterates it owns it.
        let reader = StateReader()
        let counts = await reader.read(until: 3)
        #expect(counts.last == 3)
    }
}

/// An actor that iterates a non-`Sendable` state: `next(isolation:)` keeps
/// the elements in its isolation.
private actor StateReader {
    func read(until last: Int) async -> [Int] {
        let store = Store<NonSendableState, Int>(state: NonSendableState()) { state, n in state.count += n }
        let poke = { store.dispatch(1) }
        var counts: [Int] = []
        var iterator = store.states.makeAsyncIterator()
        while let state = await iterator.next() {
            counts.append(state.count)
            state.box.value += 1
            if state.count == last { break }
            poke()
        }
        for await state in store.states {
            counts.append(state.count)
            break
        }
        return counts
    }
}
