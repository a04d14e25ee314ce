import FastStore
import Testing

/// A fake API whose calls wait until the test lets them finish.
private final class Gate: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    init() { (stream, continuation) = AsyncStream<Void>.makeStream() }
    func wait() async { for await _ in stream { return } }
    func open() { continuation.yield() }
}

private final class ArticleReactor: Reactor {
    enum Action: Sendable { case toggleBookmarked, refresh }
    enum Mutation: Sendable { case toggleBookmarked, setLoading(Bool), setTitle(String) }
    struct State: Equatable, Sendable {
        var isBookmarked = false
        var isLoading = false
        var title = ""
    }

    let initialState = State()
    let runtime = ReactorRuntime()
    let api: Gate

    init(api: Gate = Gate()) { self.api = api }

    func mutate(action: Action) -> ReactorStream<Mutation> {
        switch action {
        case .toggleBookmarked:
            return .just(.toggleBookmarked)
        case .refresh:
            return ReactorStream { [api] emit in
                emit(.setLoading(true))
                await api.wait()
                emit(.setTitle("loaded"))
                emit(.setLoading(false))
            }
        }
    }

    func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        switch mutation {
        case .toggleBookmarked: state.isBookmarked.toggle()
        case .setLoading(let loading): state.isLoading = loading
        case .setTitle(let title): state.title = title
        }
        return state
    }
}

@MainActor
@Suite struct ReactorTests {
    @Test func togglingTheBookmarkTwice() {
        let reactor = ArticleReactor()
        reactor.send(.toggleBookmarked)
        #expect(reactor.currentState.isBookmarked == true)
        reactor.send(.toggleBookmarked)
        #expect(reactor.currentState.isBookmarked == false)
    }

    @Test func mutateEmitsMutationsOverTime() async {
        let api = Gate()
        let reactor = ArticleReactor(api: api)
        var loading: [Bool] = []
        let subscription = reactor.observe { loading.append($0.isLoading) }
        let states = reactor.states

        reactor.send(.refresh)
        while !reactor.currentState.isLoading { await Task.yield() }
        #expect(loading == [false, true])          // loading while the API runs
        api.open()
        await reactor.flush()
        #expect(loading == [false, true, true, false])   // initial, loading, title, loaded
        #expect(reactor.currentState == ArticleReactor.State(isBookmarked: false, isLoading: false, title: "loaded"))

        var isLoading: [Bool] = []
        for await state in states {
            isLoading.append(state.isLoading)
            if state.title == "loaded" && !state.isLoading { break }
        }
        #expect(isLoading == [false, true, true, false])
        withExtendedLifetime(subscription) {}
    }

    @Test func mutationsOfConcurrentActionsInterleaveAsTheyCome() async {
        let api = Gate()
        let reactor = ArticleReactor(api: api)
        reactor.send(.refresh)
        while !reactor.currentState.isLoading { await Task.yield() }
        reactor.send(.toggleBookmarked)            // not held up by the refresh
        #expect(reactor.currentState.isBookmarked)
        #expect(reactor.currentState.isLoading)
        api.open()
        await reactor.flush()
        #expect(reactor.currentState == ArticleReactor.State(isBookmarked: true, isLoading: false, title: "loaded"))
    }

    @Test func anObserverSendingAnActionSeesStatesInOrder() {
        let reactor = ArticleReactor()
        var first: [Bool] = []
        var second: [Bool] = []
        let a = reactor.observe { state in
            first.append(state.isBookmarked)
            if state.isBookmarked { reactor.send(.toggleBookmarked) }   // re-entrant
        }
        let b = reactor.observe { second.append($0.isBookmarked) }
        reactor.send(.toggleBookmarked)
        #expect(first == [false, true, false])
        #expect(second == [false, true, false])    // never the newer state before the older
        #expect(reactor.currentState.isBookmarked == false)
        withExtendedLifetime((a, b)) {}
    }

    @Test func aReleasedReactorEndsItsStreamsAndTasks() async {
        let api = Gate()
        weak var weakReactor: ArticleReactor?
        var states: ReactorStream<ArticleReactor.State>?
        do {
            let reactor = ArticleReactor(api: api)
            weakReactor = reactor
            states = reactor.states
            reactor.send(.refresh)                  // a mutation stream left running
        }
        #expect(weakReactor == nil)
        var count = 0
        for await _ in states! { count += 1 }       // ends: the reactor is gone
        #expect(count >= 1)
        api.open()
    }
}
