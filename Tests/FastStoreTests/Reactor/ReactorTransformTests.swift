import FastStore
import Testing

/// A global stream: the signed-in user, as an app publishes it.
private final class CurrentUser: Sendable {
    let updates: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation
    init() { (updates, continuation) = AsyncStream<String>.makeStream() }
    func signIn(_ name: String) { continuation.yield(name) }
}

private final class GreetingReactor: Reactor {
    enum Action: Sendable { case greet(String), ignored }
    enum Mutation: Sendable { case setGreeting(String), setUser(String) }
    struct State: Equatable, Sendable {
        var greeting = ""
        var user = "nobody"
    }

    let initialState = State()
    let runtime = ReactorRuntime()
    let currentUser: CurrentUser

    init(currentUser: CurrentUser) { self.currentUser = currentUser }

    func mutate(action: Action) -> ReactorStream<Mutation> {
        switch action {
        case .greet(let text): .just(.setGreeting(text))
        case .ignored: .empty
        }
    }

    func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        switch mutation {
        case .setGreeting(let text): state.greeting = text
        case .setUser(let user): state.user = user
        }
        return state
    }

    func transform(action: ReactorStream<Action>) -> ReactorStream<Action> {
        action
            .filter { if case .ignored = $0 { false } else { true } }
            .map { if case .greet(let text) = $0 { .greet(text.uppercased()) } else { $0 } }
    }

    func transform(mutation: ReactorStream<Mutation>) -> ReactorStream<Mutation> {
        .merge(mutation, ReactorStream(currentUser.updates).map(Mutation.setUser))
    }

    func transform(state: ReactorStream<State>) -> ReactorStream<State> {
        state.map { state in
            var state = state
            state.greeting += "!"
            return state
        }
    }
}

/// The same hooks without the merge: every hook a chain of `map` and
/// `filter` on the reactor's own stream, which `flush()` follows exactly.
private final class ChainedGreetingReactor: Reactor {
    typealias Action = GreetingReactor.Action
    typealias Mutation = GreetingReactor.Mutation
    typealias State = GreetingReactor.State

    let initialState = State()
    let runtime = ReactorRuntime()
    private let base = GreetingReactor(currentUser: CurrentUser())

    func mutate(action: Action) -> ReactorStream<Mutation> { base.mutate(action: action) }
    func reduce(state: State, mutation: Mutation) -> State { base.reduce(state: state, mutation: mutation) }
    func transform(action: ReactorStream<Action>) -> ReactorStream<Action> { base.transform(action: action) }
    func transform(mutation: ReactorStream<Mutation>) -> ReactorStream<Mutation> { mutation.map { $0 } }
    func transform(state: ReactorStream<State>) -> ReactorStream<State> { base.transform(state: state) }
}

/// A hook that uses its reactor while the runtime starts.
private final class SelfReadingReactor: Reactor {
    typealias Action = Int
    struct State: Sendable { var value = 0 }

    let initialState = State()
    let runtime = ReactorRuntime()
    var seenAtStart: Int?

    func reduce(state: State, mutation: Int) -> State { State(value: state.value + mutation) }

    func transform(state: ReactorStream<State>) -> ReactorStream<State> {
        seenAtStart = currentState.value
        return state
    }
}

@MainActor
@Suite struct ReactorTransformTests {
    /// Waits until the reactor's current state satisfies `condition`.
    private func waitForState(of reactor: GreetingReactor, where condition: (GreetingReactor.State) -> Bool) async -> GreetingReactor.State {
        while !condition(reactor.currentState) { await Task.yield() }
        return reactor.currentState
    }

    @Test func transformHooksMapActionsMergeAGlobalStreamAndMapStates() async {
        let user = CurrentUser()
        let reactor = GreetingReactor(currentUser: user)
        reactor.send(.greet("hello"))               // uppercased by transform(action:)
        _ = await waitForState(of: reactor) { $0.greeting == "HELLO!" }   // "!" by transform(state:)

        user.signIn("tokijh")                       // merged in by transform(mutation:)
        let state = await waitForState(of: reactor) { $0.user == "tokijh" }
        // transform(state:) maps what reduce publishes, not what it reduces
        // from: the greeting gets one "!", not two.
        #expect(state.greeting == "HELLO!")

        reactor.send(.ignored)                      // dropped by transform(action:)
        reactor.send(.greet("bye"))
        _ = await waitForState(of: reactor) { $0.greeting == "BYE!" }
    }

    @Test func flushWaitsForChainedTransforms() async {
        let reactor = ChainedGreetingReactor()
        for word in ["a", "b", "c"] { reactor.send(.greet(word)) }
        reactor.send(.ignored)
        await reactor.flush()
        #expect(reactor.currentState.greeting == "C!")
    }

    @Test func aHookMayUseItsReactorWhileTheRuntimeStarts() {
        let reactor = SelfReadingReactor()
        reactor.send(2)
        reactor.send(3)
        #expect(reactor.seenAtStart == 0)
        #expect(reactor.currentState.value == 5)
    }
}
