import Dispatch
@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

private struct LogRow: Equatable, Sendable {
    var done = false
}

private struct LogRows: Equatable, Sendable {
    var items: VersionedList<LogRow>
    var title = "rows"
}

private enum LogAction: Sendable {
    case toggle(Int)
}

private func logReducer(_ state: inout Versioned<LogRows>, _ action: LogAction) {
    switch action {
    case .toggle(let i): state.items[i].done.toggle()
    }
}

private func makeLogStore(_ count: Int = 8) -> Store<Versioned<LogRows>, LogAction> {
    Store(state: Versioned(LogRows(items: VersionedList(Array(repeating: LogRow(), count: count)))), reducer: logReducer)
}

/// A store's change log logs its drains only once a watcher that reads it
/// appears (`_ChangeLog.wanted`): consumers connected on the draining
/// thread take the drain's writes from the drain, and the watchers that
/// read the log mark it at their first contact, so none of them compares
/// everything because of it.
@Suite struct ChangeLogWantedTests {
    @Test func consumersConnectedOnTheDrainingThreadLeaveTheLogUnwritten() {
        let store = makeLogStore()
        let consumer = StateConsumer<Versioned<LogRows>>()
        var seen: [Bool] = []
        consumer.add({ $0.items[2].done }) { (new: Bool) in seen.append(new) }
        let subscription = consumer.connect(to: store)
        for _ in 0..<5 { store.dispatch(.toggle(2)) }
        store.dispatch(.toggle(3))
        #expect(seen == [false, true, false, true, false, true])
        #expect(store._changeLogState.wanted == false)
        #expect(store._changeLogState.logged == 0)
        #expect(consumer._statistics.fullConsumes == 1, "the first consume only")
        #expect(consumer._statistics.journaledConsumes == 5, "toggle(3) wakes nobody")
        withExtendedLifetime(subscription) {}
    }

    /// A consumer fed by a plain subscriber (`consume(newState:)`) marks
    /// the log at its first consume: every later drain is logged, and every
    /// later consume journaled.
    @Test func aConsumerFedByASubscriberMarksTheLogAtItsFirstConsume() {
        let store = makeLogStore()
        let consumer = StateConsumer<Versioned<LogRows>>()
        var seen: [Bool] = []
        consumer.add({ $0.items[1].done }) { (new: Bool) in seen.append(new) }
        consumer.consume(newState: store.state)
        #expect(store._changeLogState.wanted)
        let subscription = store.subscribe { consumer.consume(newState: $0) }
        for _ in 0..<4 { store.dispatch(.toggle(1)) }
        #expect(seen == [false, true, false, true, false])
        #expect(store._changeLogState.logged == 4)
        #expect(consumer._statistics.fullConsumes == 1)
        #expect(consumer._statistics.journaledConsumes == 4)
        subscription.cancel()
    }

    /// A watcher that first reads after some unlogged drains compares once
    /// (the step is one the log cannot prove), then reads the log.
    @Test func aLateReaderComparesOnceThenReadsTheLog() {
        var rng = SeededGenerator(seed: 71)
        let store = makeLogStore(16)
        let connected = StateConsumer<Versioned<LogRows>>()
        connected.add({ $0.items[0].done }) { (_: Bool) in }
        let subscription = connected.connect(to: store)
        let late = StateConsumer<Versioned<LogRows>>()
        var lateSeen: [[Bool]] = []
        late.add({ $0.items.map(\.done) }) { (new: [Bool]) in lateSeen.append(new) }
        // The late consumer saw a state, but outside any consume (its
        // first consume is of an older state held elsewhere: a value kept
        // before the log existed for it).
        let kept = store.state
        for _ in 0..<10 { store.dispatch(.toggle(Int.random(in: 0..<16, using: &rng))) }
        #expect(store._changeLogState.logged == 0)
        late.consume(newState: kept)          // marks the log
        late.consume(newState: store.state)   // a step the log did not record
        #expect(late._statistics.unlinkedConsumes == 1)
        for _ in 0..<10 {
            store.dispatch(.toggle(Int.random(in: 0..<16, using: &rng)))
            late.consume(newState: store.state)
        }
        #expect(late._statistics.journaledConsumes == 10)
        #expect(lateSeen.last == store.state.items.map(\.done))
        withExtendedLifetime(subscription) {}
    }

    /// A main-queue hub reads the log (it coalesces drains made on other
    /// threads): the log is marked when the hub is made, so its first
    /// delivery is proven by the log, not compared.
    @Test func aMainQueueHubMarksTheLogWhenItIsMade() async {
        let store = makeLogStore()
        let consumer = StateConsumer<Versioned<LogRows>>()
        let seen = Shared<[Bool]>([])
        consumer.add({ $0.items[4].done }) { (new: Bool) in seen.mutate { $0.append(new) } }
        let subscription = consumer.connect(to: store, on: .main)
        #expect(store._changeLogState.wanted)
        await Task.detached {
            for _ in 0..<9 { store.dispatch(.toggle(4)) }
        }.value
        // The main queue is told after the dispatches returned, by blocks
        // queued before this point: a turn of the main actor runs after
        // them (a few turns allowed; a missed update never shows). Counted
        // in turns, not time: other tests may hold the main thread.
        for _ in 0..<100 where seen.value.last != true {
            await MainActor.run {}
        }
        #expect(seen.value.last == true)
        #expect(consumer._statistics.unlinkedConsumes == 0)
        #expect(consumer._statistics.fullConsumes == 1, "the first consume only")
        withExtendedLifetime((consumer, subscription)) {}
    }

    /// A `Derived` marks the log at its first read: its later reads ask
    /// the log whether its memo holds, rather than recomputing.
    @Test func aDerivedValueMarksTheLogAtItsFirstRead() {
        let store = makeLogStore()
        let firstDone = Derived<Versioned<LogRows>, Bool> { $0.items[0].done }
        _ = firstDone(store.state)
        #expect(store._changeLogState.wanted)
        for _ in 0..<3 {
            store.dispatch(.toggle(5))
            #expect(firstDone(store.state) == false)
        }
        #expect(firstDone._computeCount == 1, "the memo held across the three drains")
    }
}
