import Dispatch
@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

private struct HubRow: Equatable, Sendable {
    var done = false
}

private struct HubRows: Equatable, Sendable {
    var items: VersionedList<HubRow>
    var title = "rows"
}

private enum HubRowAction: Sendable {
    case toggle(Int)
    case title(String)
    case replace(Versioned<HubRows>)
}

private func rowReducer(_ state: inout Versioned<HubRows>, _ action: HubRowAction) {
    switch action {
    case .toggle(let i): state.items[i].done.toggle()
    case .title(let title): state.title = title
    case .replace(let other): state = other
    }
}

private func makeRowStore(_ count: Int) -> Store<Versioned<HubRows>, HubRowAction> {
    Store(state: Versioned(HubRows(items: VersionedList(Array(repeating: HubRow(), count: count)))), reducer: rowReducer)
}

/// The store's wake-up hub: one subscription for every consumer connected
/// to a store, which calls only the consumers whose reads a publish wrote.
@Suite struct WakeUpHubTests {
    @Test func aPublishCallsOnlyTheScreenWhoseRowItWrote() {
        let store = makeRowStore(1_000)
        let screens = (0..<1_000).map { _ in StateConsumer<Versioned<HubRows>>() }
        var seen: [Int: [Bool]] = [:]
        for (i, screen) in screens.enumerated() {
            screen.add({ $0.items[i].done }) { (_: Bool?, new: Bool) in seen[i, default: []].append(new) }
        }
        let subscriptions = screens.map { $0.connect(to: store) }
        #expect(store.subscriberCount == 1, "one store subscription for every connected consumer")
        #expect(store._connectedConsumerCount() == 1_000)
        store.dispatch(.title("anchor"))      // every screen is told once, then anchored
        let before = screens.map { $0._statistics }
        store.dispatch(.toggle(500))
        store.dispatch(.title("other"))       // nobody reads the title
        let after = screens.map { $0._statistics }
        let called = (0..<1_000).filter { before[$0] != after[$0] }
        #expect(called == [500])
        #expect(seen[500] == [false, true])
        #expect(seen.values.allSatisfy { $0.count == 1 || $0 == [false, true] })
        withExtendedLifetime(subscriptions) {}
    }

    /// The hub takes a drain's writes from the drain itself, not from the
    /// change log: a batch too large for the log (more writes than it
    /// keeps) still wakes only the screen whose row it wrote.
    @Test func aBatchTooLargeForTheChangeLogStillWakesOnlyItsScreens() {
        let rows = 40_000
        let store = makeRowStore(rows)
        let screens = (0..<100).map { i in
            let screen = StateConsumer<Versioned<HubRows>>()
            screen.add({ $0.items[i].done }) { (_: Bool) in }
            return screen
        }
        let subscriptions = screens.map { $0.connect(to: store) }
        store.dispatch(.title("anchor"))
        let before = screens.map { $0._statistics }
        let toggles = [HubRowAction.toggle(50)] + (100..<rows).map { HubRowAction.toggle($0) }
        store.dispatch(contentsOf: toggles)
        let after = screens.map { $0._statistics }
        #expect((0..<100).filter { before[$0] != after[$0] } == [50])
        #expect(store.state.items[50].done && store.state.items[rows - 1].done)
        withExtendedLifetime((screens, subscriptions)) {}
    }

    @Test func cancellingOrReleasingDisconnects() {
        let store = makeRowStore(10)
        let consumer = StateConsumer<Versioned<HubRows>>()
        var seen: [Bool] = []
        consumer.add({ $0.items[3].done }) { (new: Bool) in seen.append(new) }
        var subscription: StoreSubscription? = consumer.connect(to: store)
        store.dispatch(.toggle(3))
        #expect(seen == [false, true])
        subscription?.cancel()
        store.dispatch(.toggle(3))
        #expect(seen == [false, true])
        #expect(store._connectedConsumerCount() == 0)
        subscription = consumer.connect(to: store)   // reconnecting: the current state at once
        #expect(seen == [false, true, false])
        subscription = nil
        #expect(store.subscriberCount == 0, "the hub went with its last connection")
        store.dispatch(.toggle(3))
        #expect(seen == [false, true, false])
    }

    /// The store's subscriber holds its hub, and the hub cancels that
    /// subscription when its last connection goes: a connect racing that
    /// last disconnect (from another thread) either joins the hub before it
    /// retires or gets a new one, and is told of the next dispatch either
    /// way; once everyone went, the store has no subscriber left.
    @Test(arguments: 0..<3) func aConnectRacingTheLastDisconnectIsAlwaysTold(seed: UInt64) {
        var rng = SeededGenerator(seed: 900 + seed)
        let store = makeRowStore(4)
        for round in 0..<100 {
            let leaving = StateConsumer<Versioned<HubRows>>()
            leaving.add({ $0.items[0].done }) { (_: Bool) in }
            let leavingSubscription = leaving.connect(to: store)
            let joining = StateConsumer<Versioned<HubRows>>()
            let seen = Shared(0)
            joining.add({ $0.items[1].done }) { (_: Bool) in seen.mutate { $0 += 1 } }
            let joined = Shared<StoreSubscription?>(nil)
            let group = DispatchGroup()
            let joinFirst = Bool.random(using: &rng)
            DispatchQueue.global().async(group: group) {
                if joinFirst { joined.value = joining.connect(to: store) }
                leavingSubscription.cancel()
            }
            if !joinFirst { joined.value = joining.connect(to: store) }
            group.wait()
            #expect(seen.value == 1, "round \(round): the first consume")
            store.dispatch(.toggle(1))
            #expect(seen.value == 2, "round \(round): the dispatch after the race")
            #expect(store.subscriberCount == 1, "round \(round): one hub subscribed")
            joined.value?.cancel()
            #expect(store.subscriberCount == 0, "round \(round): the hub went with its last connection")
        }
    }

    @Test func releasingTheTokenOfADeallocatedConsumerUnsubscribesTheHub() {
        let store = makeRowStore(4)
        var consumer: StateConsumer<Versioned<HubRows>>? = StateConsumer()
        consumer!.add({ $0.items[0].done }) { (_: Bool) in }
        var subscription: StoreSubscription? = consumer!.connect(to: store)
        consumer = nil
        store.dispatch(.toggle(0))   // the hub drops the deallocated consumer
        #expect(store._connectedConsumerCount() == 0)
        #expect(store.subscriberCount == 1, "its token still holds the connection")
        subscription = nil
        #expect(store.subscriberCount == 0)
        withExtendedLifetime(subscription) {}
    }

    @Test func aDeallocatedConsumerIsDroppedByTheHub() {
        let store = makeRowStore(10)
        var consumer: StateConsumer<Versioned<HubRows>>? = StateConsumer()
        consumer!.add({ $0.items[1].done }) { (_: Bool) in }
        let subscription = consumer!.connect(to: store)
        weak let gone = consumer
        consumer = nil
        #expect(gone == nil, "the hub holds its consumers weakly")
        store.dispatch(.toggle(1))
        #expect(store._connectedConsumerCount() == 0)
        withExtendedLifetime(subscription) {}
    }

    /// Many connected consumers gone at once, found by one publish that
    /// wakes them all: the hub drops them all, then renumbers the rest
    /// (renumbering between two drops crashed).
    @Test func manyDeallocatedConsumersFoundByOnePublish() {
        let store = makeRowStore(10)
        var consumers: [StateConsumer<Versioned<HubRows>>] = (0..<40).map { _ in StateConsumer() }
        var seen = 0
        for consumer in consumers { consumer.add({ $0.items[1].done }) { (_: Bool) in seen += 1 } }
        let subscriptions = consumers.map { $0.connect(to: store) }
        consumers.removeLast(30)
        #expect(seen == 40)
        store.dispatch(.replace(Versioned(HubRows(items: VersionedList(Array(repeating: HubRow(done: true), count: 10))))))
        #expect(seen == 50, "the ten consumers left are told")
        #expect(store._connectedConsumerCount() == 10)
        store.dispatch(.toggle(1))
        #expect(seen == 60)
        withExtendedLifetime((consumers, subscriptions)) {}
    }

    /// A consumer that keeps its last state evaluates a consumer added
    /// later against the store's latest state, though the drains before
    /// wrote nothing it read.
    @Test func consumeInstantlySeesEveryPublish() {
        let store = makeRowStore(10)
        let consumer = StateConsumer<Versioned<HubRows>>()
        consumer.consumeInstantly = true
        consumer.add({ $0.items[0].done }) { (_: Bool) in }
        let subscription = consumer.connect(to: store)
        store.dispatch(.toggle(5))
        store.dispatch(.toggle(5))
        store.dispatch(.toggle(5))
        var seen: [Bool] = []
        consumer.add({ $0.items[5].done }) { (new: Bool) in seen.append(new) }
        #expect(seen == [true])
        withExtendedLifetime(subscription) {}
    }

    @Test func aConsumerConnectedTwiceIsToldOncePerChange() {
        let store = makeRowStore(10)
        let consumer = StateConsumer<Versioned<HubRows>>()
        var seen: [Bool] = []
        consumer.add({ $0.items[2].done }) { (new: Bool) in seen.append(new) }
        let first = consumer.connect(to: store)
        let second = consumer.connect(to: store)
        store.dispatch(.toggle(2))
        store.dispatch(.toggle(7))
        store.dispatch(.toggle(2))
        #expect(seen == [false, true, false])
        first.cancel()
        store.dispatch(.toggle(2))
        #expect(seen == [false, true, false, true])
        withExtendedLifetime(second) {}
    }

    /// A screen with one selection that the hub wakes because a write
    /// affects its reads evaluates that selection without looking the
    /// writes up again; one the hub tells of every publish (just
    /// connected, not anchored yet) still evaluates only what the writes
    /// affect.
    @Test func aOneSelectionScreenIsEvaluatedOnlyWhenItsRowIsWritten() {
        let store = makeRowStore(10)
        let screen = StateConsumer<Versioned<HubRows>>()
        var seen: [Bool] = []
        screen.add({ $0.items[3].done }) { (new: Bool) in seen.append(new) }
        let subscription = screen.connect(to: store)
        let connected = screen._statistics.evaluations
        store.dispatch(.title("anchor"))      // told, as every publish until anchored; reads no title
        #expect(screen._statistics.evaluations == connected)
        store.dispatch(.toggle(3))
        #expect(screen._statistics.evaluations == connected + 1)
        store.dispatch(.toggle(4))
        #expect(screen._statistics.evaluations == connected + 1)
        store.dispatch(.toggle(3))
        #expect(screen._statistics.evaluations == connected + 2)
        #expect(seen == [false, true, false])
        withExtendedLifetime(subscription) {}
    }

    /// A consumer connected to two stores: each store's states reach it,
    /// and it is right about each.
    @Test func aConsumerConnectedToTwoStores() {
        let a = makeRowStore(10)
        let b = makeRowStore(10)
        let consumer = StateConsumer<Versioned<HubRows>>()
        var seen: [Bool] = []
        consumer.add({ $0.items[4].done }) { (new: Bool) in seen.append(new) }
        let sa = consumer.connect(to: a)
        let sb = consumer.connect(to: b)
        a.dispatch(.toggle(4))        // a: true, b: false
        #expect(seen.last == true)
        b.dispatch(.toggle(1))        // b's state, where row 4 is false
        #expect(seen.last == false)
        a.dispatch(.toggle(2))        // a's state again: row 4 is true there
        #expect(seen.last == true)
        withExtendedLifetime((sa, sb)) {}
    }

    @MainActor
    @Test func mainQueueConnectionsSeeTheFinalState() async throws {
        let store = makeRowStore(100)
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        let screens = (0..<50).map { _ in StateConsumer<Versioned<HubRows>>() }
        let seen = Shared<[Int: (done: Bool, onMain: Bool)]>([:])
        for (i, screen) in screens.enumerated() {
            screen.add({ $0.items[i].done }) { (new: Bool) in
                seen.mutate { $0[i] = (new, DispatchQueue.getSpecific(key: key) == true) }
            }
        }
        let subscriptions = screens.map { $0.connect(to: store, on: .main) }
        await Task.detached {
            for i in 0..<500 { store.dispatch(.toggle(i % 50)) }
            store.dispatch(.toggle(7))
        }.value
        // The main queue is told after the dispatches returned: wait until
        // every screen shows the final state (a missed update never does).
        let final = store.state
        func converged() -> Bool { (0..<50).allSatisfy { seen.value[$0]?.done == final.items[$0].done } }
        for _ in 0..<2_000 where !converged() {
            try await Task.sleep(for: .milliseconds(5))
        }
        for i in 0..<50 {
            #expect(seen.value[i]?.done == final.items[i].done, "screen \(i)")
        }
        #expect(seen.value.values.allSatisfy { $0.onMain })
        // NB: the screens too: a store holds its consumers weakly, and an
        // optimized build ends a local's lifetime at its last use. Without
        // this, release builds released every consumer right after
        // connecting, and screen 7 (the only one whose final value differs
        // from its first) looked like a missed update.
        withExtendedLifetime((screens, subscriptions)) {}
    }
}
