import FastStore
import Testing

// docs/MIGRATING.md, "From ReactorKit": a counter reactor moved over to
// FastStore's `Reactor`; ReactorKit's `ProfileViewReactor` as a `Store`, a
// middleware for `mutate`'s side effects and a `StateConsumer` for
// `bind(reactor:)`; `@Pulse` in a store's state; the stub as a recording
// middleware. Compiled and run; views are closures. Keep in step with
// docs/MIGRATING.md.

// MARK: A reactor, moved over

private final class CounterReactor: Reactor {      // was: ReactorKit's Reactor
    enum Action: Sendable { case increase }
    enum Mutation: Sendable { case increaseValue, setLoading(Bool) }
    struct State: Sendable {
        var value = 0
        var isLoading = false
    }

    let initialState = State()
    let runtime = ReactorRuntime()         // new: the reactor's storage

    func mutate(action: Action) -> ReactorStream<Mutation> {   // was: Observable<Mutation>
        switch action {
        case .increase:
            .concat(
                .just(.setLoading(true)),
                ReactorStream { emit in
                    try? await Task.sleep(for: .milliseconds(10))   // was: .delay(…)
                    emit(.increaseValue)
                },
                .just(.setLoading(false)))
        }
    }

    func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        switch mutation {
        case .increaseValue: state.value += 1
        case .setLoading(let isLoading): state.isLoading = isLoading
        }
        return state
    }
}

// MARK: The reactor

private struct ProfileState {
    var isFollowing: Bool = false
}

private enum ProfileAction {
    // Reactor.Action: what the view sends
    case refreshFollowingStatus(Int)
    case follow(Int)
    // Reactor.Mutation: what the reducer applies
    case setFollowing(Bool)
}

// reduce(state:mutation:), in place
private func profileReducer(_ state: inout ProfileState, _ action: ProfileAction) {
    switch action {
    case .setFollowing(let isFollowing):
        state.isFollowing = isFollowing
    case .refreshFollowingStatus, .follow:
        break  // side effects: see profileEffects
    }
}

private protocol UserAPI: Sendable {
    func isFollowing(_ userID: Int) async -> Bool
    func follow(_ userID: Int) async
}

// mutate(action:): runs the side effect, then dispatches the mutation
private func profileEffects(api: some UserAPI) -> Middleware<ProfileState, ProfileAction> {
    Middleware { context, action, next in
        next(action)
        switch action {
        case .refreshFollowingStatus(let userID):
            Task { context.dispatch(.setFollowing(await api.isFollowing(userID))) }
        case .follow(let userID):
            Task {
                await api.follow(userID)
                context.dispatch(.setFollowing(true))
            }
        case .setFollowing:
            break
        }
    }
}

private struct FakeUserAPI: UserAPI {
    let following: Bool
    func isFollowing(_ userID: Int) async -> Bool { following }
    func follow(_ userID: Int) async {}
}

// MARK: @Pulse

private struct AlertState {
    @Pulse var alertMessage: String? = nil
    var other = 0
}

private enum AlertAction { case alert(String), doSomeAction }

private func alertReducer(_ state: inout AlertState, _ action: AlertAction) {
    switch action {
    case .alert(let message): state.alertMessage = message
    case .doSomeAction: state.other += 1
    }
}

/// Polls `condition` for up to two seconds (the middleware's side effects
/// finish in tasks).
private func eventually(_ condition: () -> Bool) async throws -> Bool {
    for _ in 0..<2_000 {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}

@Suite struct MigratingFromReactorKitTests {
    @MainActor
    @Test func aReactorMovesOverLineForLine() async {
        var shown: [Int] = []
        let bag = SubscriptionBag()                                    // was: DisposeBag
        let reactor = CounterReactor()
        reactor.observe({ $0.value }) { shown.append($0) }             // was: state.map(\.value).distinctUntilChanged()
            .store(in: bag)
        reactor.send(.increase)                                        // was: action.onNext(.increase)
        await reactor.flush()
        #expect(shown == [0, 1], "the current value, then the increase: \(shown)")
        #expect(reactor.currentState.isLoading == false)
    }

    @Test func reactorAsStoreMiddlewareAndConsumer() async throws {
        let api = FakeUserAPI(following: true)
        let userID = 42
        var followButtonIsSelected = false
        var refreshButtonOnTap: () -> Void = {}

        let reactor = Store(state: ProfileState(), reducer: profileReducer,
                            middleware: [profileEffects(api: api)])

        // bind(reactor:)
        // action (View -> Reactor)
        refreshButtonOnTap = { reactor.dispatch(.refreshFollowingStatus(userID)) }
        // state (Reactor -> View)
        let consumer = StateConsumer<ProfileState>()
        consumer.add({ $0.isFollowing }) { (new: Bool) in followButtonIsSelected = new }
        let subscription = consumer.connect(to: reactor)

        #expect(followButtonIsSelected == false)
        refreshButtonOnTap()
        #expect(try await eventually { reactor.state.isFollowing })
        await reactor.flush()  // the drain that published it has called its consumers
        #expect(followButtonIsSelected == true)
        _ = subscription
    }

    @Test func pulseCallsOnEveryEmitOnly() {
        let store = Store(state: AlertState(), reducer: alertReducer)
        var shown: [String] = []
        func showAlert(_ message: String) { shown.append(message) }

        let consumer = StateConsumer<AlertState>()
        consumer.add({ $0.$alertMessage }) { (old: Pulse<String?>?, new: Pulse<String?>) in
            if old != nil, let message = new.value { showAlert(message) }
        }
        let subscription = consumer.connect(to: store)

        store.dispatch(.alert("Hello"))   // showAlert() is called with `Hello`
        store.dispatch(.alert("Hello"))   // showAlert() is called with `Hello`
        store.dispatch(.doSomeAction)     // showAlert() is not called
        store.dispatch(.alert("Hello"))   // showAlert() is called with `Hello`
        store.dispatch(.alert("tokijh"))  // showAlert() is called with `tokijh`
        store.dispatch(.doSomeAction)     // showAlert() is not called
        #expect(shown == ["Hello", "Hello", "Hello", "tokijh"])
        subscription.cancel()
    }

    @Test func stubRecordsActionsAndShowsAGivenState() {
        // ReactorKit's stub: actions are recorded, not reduced; the state is
        // the one the test sets.
        var actions: [ProfileAction] = []
        let stub = Middleware<ProfileState, ProfileAction> { _, action, _ in actions.append(action) }
        let reactor = Store(state: ProfileState(isFollowing: true), reducer: profileReducer, middleware: [stub])

        reactor.dispatch(.follow(7))   // the view's tap
        guard case .follow(7)? = actions.last else {
            Issue.record("the tap was not recorded: \(actions)")
            return
        }
        #expect(reactor.state.isFollowing == true, "not reduced: the given state stays")
    }

    @Test func reducerIsAPureFunction() {
        // ReactorKit's reactor test, without a store.
        var state = ProfileState()
        profileReducer(&state, .setFollowing(true))
        #expect(state.isFollowing == true)
        profileReducer(&state, .follow(1))
        #expect(state.isFollowing == true, "follow's effect is the middleware's, not the reducer's")
    }
}
