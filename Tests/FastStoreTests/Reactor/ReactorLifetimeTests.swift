@testable import FastStore
import Testing

private final class CountReactor: Reactor {
    typealias Action = Int
    struct State: Sendable { var count = 0 }

    let initialState = State()
    let runtime = ReactorRuntime()

    func reduce(state: State, mutation: Int) -> State { State(count: state.count + mutation) }
}

/// What a reactor's streams and observers keep, and when they let go.
@MainActor
@Suite struct ReactorLifetimeTests {
    @Test func aStatesStreamDroppedUnreadStopsObserving() {
        let reactor = CountReactor()
        do { _ = reactor.states }
        reactor.send(1)                            // publishing drops cancelled observers
        #expect(reactor._engine.observers.isEmpty)
    }

    @Test func cancellingTheIteratingTaskStopsObserving() async {
        let reactor = CountReactor()
        let states = reactor.states
        let started = AsyncStream<Void>.makeStream()
        let task = Task {
            var seen = 0
            for await _ in states {
                seen += 1
                started.continuation.yield()
            }
            return seen
        }
        for await _ in started.stream { break }    // the task has the current state
        task.cancel()
        let seen = await task.value
        #expect(seen >= 1)
        reactor.send(1)
        #expect(reactor._engine.observers.isEmpty)
    }

    @Test func theEngineIsReleasedWithItsReactor() {
        weak var weakEngine: _ReactorEngine<CountReactor>?
        weak var weakReactor: CountReactor?
        do {
            let reactor = CountReactor()
            weakReactor = reactor
            weakEngine = reactor._engine
            let subscription = reactor.observe { _ in }
            reactor.send(2)
            subscription.cancel()
        }
        #expect(weakReactor == nil)
        #expect(weakEngine == nil)
    }

    /// A cancelled observer lets go of its closure at once, not at the
    /// engine's next publication: an observer that uses its reactor (as
    /// `bind(reactor:)` code does) must not keep it alive.
    @Test func aCancelledObserverDoesNotKeepItsReactorAlive() {
        weak var weakReactor: CountReactor?
        do {
            let reactor = CountReactor()
            weakReactor = reactor
            let subscription = reactor.observe { state in
                if state.count == 1 { reactor.send(1) }
            }
            reactor.send(1)
            subscription.cancel()
        }
        #expect(weakReactor == nil, "the cancelled observer's closure still holds the reactor")
    }

    @Test func aReleasedBagDoesNotKeepItsReactorAlive() {
        weak var weakReactor: CountReactor?
        do {
            let reactor = CountReactor()
            weakReactor = reactor
            let bag = SubscriptionBag()
            reactor.observe(\.count) { _ in _ = reactor.currentState }.store(in: bag)
        }
        #expect(weakReactor == nil, "the bag's cancelled observers still hold the reactor")
    }
}
