@_spi(Testing) import FastStore
import Foundation
import Testing

/// Changes with their cause: subscribers, sequences and consumers that get
/// the actions reduced into each state.
@Suite struct StoreCausesTests {
    @Test func aChangeSubscriberGetsEachBatchsActionsInOrder() {
        let store = makeSeqStore()
        var log: [(Int, [SeqAction])] = []
        let subscription = store.subscribeChanges { change in log.append((change.state.counter, change.actions)) }
        store.dispatch(.add(1))
        store.dispatch(contentsOf: [.add(2), .setFilter("x"), .add(3)])
        #expect(log.map(\.0) == [1, 6])
        #expect(log.map(\.1) == [[.add(1)], [.add(2), .setFilter("x"), .add(3)]])
        subscription.cancel()
        store.dispatch(.add(1))
        #expect(log.count == 2)
    }

    @Test func actionsDispatchedFromInsideTheDrainAreTheCausesOfALaterBatch() {
        // A middleware that dispatches a follow-up, and a subscriber that
        // dispatches: both are queued, reduced in a later batch.
        let followUp = Middleware<SeqApp, SeqAction> { context, action, next in
            next(action)
            if action == .add(1) { context.dispatch(.add(10)) }
        }
        let store = Store(state: makeSeqStore().state, reducer: seqReducer, middleware: [followUp])
        var log: [[SeqAction]] = []
        let subscription = store.subscribeChanges { change in log.append(change.actions) }
        let poker = store.subscribe { state in
            if state.counter == 11 && state.filter == "all" { store.dispatch(.setFilter("poked")) }
        }
        store.dispatch(.add(1))
        #expect(log == [[.add(1)], [.add(10)], [.setFilter("poked")]])
        subscription.cancel()
        poker.cancel()
    }

    @Test func theActionsAreThoseDispatchedBeforeTheMiddleware() {
        let doubler = Middleware<SeqApp, SeqAction> { _, action, next in
            if case .add(let n) = action { next(.add(n * 2)) } else { next(action) }
        }
        let store = Store(state: makeSeqStore().state, reducer: seqReducer, middleware: [doubler])
        var log: [(Int, [SeqAction])] = []
        let subscription = store.subscribeChanges { change in log.append((change.state.counter, change.actions)) }
        store.dispatch(.add(4))
        #expect(log.count == 1 && log[0].0 == 8 && log[0].1 == [.add(4)])
        subscription.cancel()
    }

    @MainActor
    @Test func mainDeliveryAccumulatesTheActionsOfTheBatchesItCoalesces() async {
        let store = Store<Int, CounterAction>(state: 0, reducer: counterReducer)
        let log = Locked<[StoreChange<Int, CounterAction>]>([])
        let subscription = store.subscribeChanges(on: .main) { change in log.withValue { $0.append(change) } }
        // NB: dispatched on the main actor: every drain runs here, and the
        // main queue cannot deliver before this function suspends.
        for n in 1...100 { store.dispatch(.add(n)) }
        #expect(await eventually { log.withValue { $0.last?.state } == 5_050 })
        let changes = log.withValue { $0 }
        #expect(changes.count == 1, "100 batches coalesced into one delivery")
        #expect(changes.flatMap(\.actions).map(\.amount) == Array(1...100), "every batch's actions, in order")
        // From another thread: whatever the coalescing, no action is lost.
        log.withValue { $0.removeAll() }
        await Task.detached {
            for n in 1...200 { store.dispatch(.add(n)) }
        }.value
        #expect(await eventually { log.withValue { $0.last?.state } == 5_050 + 20_100 })
        #expect(log.withValue { $0 }.flatMap(\.actions).map(\.amount) == Array(1...200))
        subscription.cancel()
    }

    @Test func aSequenceAccumulatesTheActionsOfTheStatesItSkips() async {
        let store = makeSeqStore()
        var iterator = store.stateChanges.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.state.counter == 0 && first?.actions == [], "the current state, with no cause")
        store.dispatch(.add(1))
        store.dispatch(.toggle(2))
        store.dispatch(contentsOf: [.add(3), .add(4)])
        let second = await iterator.next()
        #expect(second?.state.counter == 8)
        #expect(second?.state.todos[id: 2]?.done == true)
        #expect(second?.actions == [.add(1), .toggle(2), .add(3), .add(4)])
        store.dispatch(.setFilter("x"))
        #expect(await iterator.next()?.actions == [.setFilter("x")])
    }

    @Test func withNoReceiverOfCausesNothingIsCopied() async {
        let store = makeSeqStore()
        let plain = store.subscribe { _ in }
        var states = store.states.makeAsyncIterator()
        _ = await states.next()
        var values = store.values { $0.counter }.makeAsyncIterator()
        _ = await values.next()
        for n in 0..<20 { store.dispatch(.add(n)) }
        #expect(store._causeReceiverCount == 0)
        #expect(store._causeCopyCount == 0, "subscribers, state and value sequences copy no actions")

        let receiver = store.subscribeChanges { _ in }
        #expect(store._causeReceiverCount == 1)
        store.dispatch(.add(1))
        store.dispatch(.add(1))
        #expect(store._causeCopyCount == 2, "one copy per batch while a receiver is registered")
        receiver.cancel()
        #expect(store._causeReceiverCount == 0)

        do {
            var changes = store.stateChanges.makeAsyncIterator()
            _ = await changes.next()
            #expect(store._causeReceiverCount == 1)
            store.dispatch(.add(1))
            _ = await changes.next()
        }
        #expect(store._causeReceiverCount == 0, "an ended change sequence uncounts itself")
        store.dispatch(.add(1))
        #expect(store._causeCopyCount == 3)
        plain.cancel()
    }

    @Test func aConsumerConnectedToChangesGetsTheActionsInItsCallbacks() {
        let store = makeSeqStore()
        let consumer = StateConsumer<SeqApp>()
        var rows: [(Bool?, [SeqAction])] = []
        var counters: [Int] = []
        consumer.add({ $0.todos[id: 3]?.done }) { (old: Bool??, new: Bool?, actions: [SeqAction]) in
            rows.append((new, actions))
        }
        consumer.add({ $0.counter }) { (old: Int?, new: Int) in counters.append(new) }
        let subscription = consumer.connectChanges(to: store)
        #expect(rows.map(\.0) == [false] && rows.map(\.1) == [[]], "the first consume has no actions")
        store.dispatch(.toggle(3))
        store.dispatch(.toggle(5))
        store.dispatch(contentsOf: [.add(2), .toggle(3)])
        #expect(rows.map(\.0) == [false, true, false])
        #expect(rows.map(\.1) == [[], [.toggle(3)], [.add(2), .toggle(3)]])
        #expect(counters == [0, 2])
        let statistics = consumer._statistics
        #expect(statistics.journaledConsumes + statistics.fullConsumes == 4)
        #expect(statistics.journaledConsumes == 3 && statistics.unlinkedConsumes == 0, "the causes ride on the journaled path")
        subscription.cancel()
    }

    @Test func aCallbackThatTakesActionsGetsNoneFromAPlainConnection() {
        let store = makeSeqStore()
        let consumer = StateConsumer<SeqApp>()
        var log: [[SeqAction]] = []
        consumer.add({ $0.counter }) { (_: Int?, _: Int, actions: [SeqAction]) in log.append(actions) }
        let subscription = consumer.connect(to: store)
        store.dispatch(.add(1))
        consumer.consume(StoreChange(state: store.state, actions: [SeqAction.add(0)]))  // same state: no call
        store.dispatch(.add(1))
        #expect(log == [[], [], []])
        subscription.cancel()
    }

    @Test func aChangeQueuedBehindARunningConsumeKeepsItsOwnActions() {
        let store = makeSeqStore()
        let consumer = StateConsumer<SeqApp>()
        var log: [(Int, [SeqAction])] = []
        var queued: StoreChange<SeqApp, SeqAction>?
        consumer.add({ $0.counter }) { (_: Int?, new: Int, actions: [SeqAction]) in
            log.append((new, actions))
            // From inside a callback: queued, delivered after this consume.
            if let change = queued {
                queued = nil
                consumer.consume(change)
            }
        }
        let initial = store.state
        store.dispatch(.add(1))
        let first = store.state
        store.dispatch(.add(2))
        queued = StoreChange(state: store.state, actions: [.add(2)])
        consumer.consume(newState: initial)
        consumer.consume(StoreChange(state: first, actions: [SeqAction.add(1)]))
        store.dispatch(.add(3))
        consumer.consume(newState: store.state)
        // The change queued by the first callback comes right after the
        // first consume; each consume has its own actions, none left over.
        #expect(log.map(\.0) == [0, 3, 1, 6])
        #expect(log.map(\.1) == [[], [.add(2)], [.add(1)], []])
    }

    @MainActor
    @Test func aConsumerConnectedToChangesOnMainGetsTheActionsOfEveryCoalescedBatch() async {
        let store = makeSeqStore()
        let consumer = StateConsumer<SeqApp>()
        let log = Locked<[(Int, [SeqAction])]>([])
        consumer.add({ $0.counter }) { (_: Int?, new: Int, actions: [SeqAction]) in
            log.withValue { $0.append((new, actions)) }
        }
        let subscription = consumer.connectChanges(to: store, on: .main)
        for n in 1...10 { store.dispatch(.add(n)) }
        store.dispatch(.toggle(1))
        #expect(await eventually { log.withValue { $0.last?.0 } == 55 })
        let calls = log.withValue { $0 }
        #expect(calls.count == 2, "the first consume, then one for the coalesced batches")
        #expect(calls.last?.1 == (1...10).map { SeqAction.add($0) } + [.toggle(1)])
        subscription.cancel()
    }

    @Test func aCallbackDeclaringAnotherActionTypeStops() async {
        await #expect(processExitsWith: .failure) {
            let store = Store<Int, Int>(state: 0) { $0 += $1 }
            let consumer = StateConsumer<Int>()
            consumer.add({ $0 }) { (_: Int?, _: Int, _: [String]) in }
            let subscription = consumer.connectChanges(to: store)
            store.dispatch(1)
            subscription.cancel()
        }
    }
}

extension CounterAction {
    var amount: Int {
        switch self {
        case .increment: 1
        case .add(let n): n
        }
    }
}
