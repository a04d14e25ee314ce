import FastStore
import Foundation
import Testing

private final class TallyReactor: Reactor {
    enum Action: Sendable { case add(Int), addLater(Int) }
    enum Mutation: Sendable { case add(Int) }
    struct State: Sendable { var total = 0; var reductions = 0 }

    let initialState = State()
    let runtime = ReactorRuntime()
    private var reducing = false
    var overlaps = 0

    func mutate(action: Action) -> ReactorStream<Mutation> {
        switch action {
        case .add(let n):
            return .just(.add(n))
        case .addLater(let n):
            // Emitted from tasks off the main actor, in two parts.
            return ReactorStream { emit in
                await Task.yield()
                emit(.add(n - 1))
                await Task.detached { emit(.add(1)) }.value
            }
        }
    }

    func reduce(state: State, mutation: Mutation) -> State {
        if reducing { overlaps += 1 }
        reducing = true
        defer { reducing = false }
        MainActor.preconditionIsolated("reduce ran off the main actor")
        var state = state
        switch mutation { case .add(let n): state.total += n }
        state.reductions += 1
        return state
    }

}

/// Many tasks sending, mutation streams emitting from other threads,
/// observers cancelled from other threads: state changes stay serial
/// (run under ThreadSanitizer with `--filter Concurrency`).
@Suite struct ReactorConcurrencyTests {
    @Test func sendsFromManyTasksAreReducedOneAtATime() async {
        let reactor = TallyReactor()
        let senders = 8
        let perSender = 150
        await withTaskGroup(of: Void.self) { group in
            for s in 0..<senders {
                group.addTask {
                    for i in 0..<perSender {
                        if (s + i) % 3 == 0 {
                            await reactor.send(.addLater(2))
                        } else {
                            await reactor.send(.add(1))
                        }
                    }
                }
            }
        }
        await reactor.flush()
        let later = (0..<senders).reduce(0) { sum, s in sum + (0..<perSender).count { (s + $0) % 3 == 0 } }
        let state = await reactor.currentState
        #expect(state.total == senders * perSender + later)
        #expect(state.reductions == senders * perSender + later)
        #expect(await reactor.overlaps == 0)
    }

    @Test func observersCancelledFromOtherThreadsStopBeingCalled() async {
        let reactor = TallyReactor()
        let calls = Shared(0)
        let bags = (0..<16).map { _ in SubscriptionBag() }
        for bag in bags {
            await MainActor.run {
                reactor.observe { _ in calls.mutate { $0 += 1 } }.store(in: bag)
            }
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for _ in 0..<200 { await reactor.send(.add(1)) }
            }
            for bag in bags {
                group.addTask { bag.cancelAll() }   // off the main actor
            }
        }
        await reactor.flush()
        let settled = calls.value
        await reactor.send(.add(1))
        #expect(calls.value == settled)             // every observer gone
        #expect(await reactor.currentState.total == 201)
    }
}
