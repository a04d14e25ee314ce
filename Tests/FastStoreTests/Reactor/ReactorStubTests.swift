import FastStore
import Testing

private final class ListReactor: Reactor {
    enum Action: Equatable, Sendable { case refresh, select(Int) }
    enum Mutation: Sendable { case setLoading(Bool) }
    struct State: Equatable, Sendable { var isLoading = false }

    let initialState = State()
    let runtime = ReactorRuntime()
    var mutateCalls = 0

    func mutate(action: Action) -> ReactorStream<Mutation> {
        mutateCalls += 1
        return .of(.setLoading(true), .setLoading(false))
    }

    func reduce(state: State, mutation: Mutation) -> State {
        switch mutation { case .setLoading(let loading): State(isLoading: loading) }
    }
}

/// A view as ReactorKit's examples have it: a refresh control and an
/// activity indicator, without UIKit.
private final class ListView: ReactorView {
    final class RefreshControl { var onValueChanged: () -> Void = {}; func sendValueChanged() { onValueChanged() } }
    final class ActivityIndicator { var isAnimating = false }

    var bag = SubscriptionBag()
    let refreshControl = RefreshControl()
    let activityIndicator = ActivityIndicator()
    var bindCount = 0

    func bind(reactor: ListReactor) {
        bindCount += 1
        refreshControl.onValueChanged = { reactor.send(.refresh) }
        reactor.observe({ $0.isLoading }) { [weak self] in self?.activityIndicator.isAnimating = $0 }
            .store(in: bag)
    }
}

@MainActor
@Suite struct ReactorStubTests {
    @Test func theViewSendsRefresh() {
        let reactor = ListReactor()
        reactor.isStubEnabled = true
        let view = ListView()
        view.reactor = reactor
        #expect(view.bindCount == 1)

        view.refreshControl.sendValueChanged()
        #expect(reactor.stub.actions.last == .refresh)
        #expect(reactor.mutateCalls == 0)          // recorded, not mutated
        #expect(reactor.currentState.isLoading == false)
    }

    @Test func theViewShowsIsLoading() {
        let reactor = ListReactor()
        reactor.isStubEnabled = true
        let view = ListView()
        view.reactor = reactor
        #expect(view.activityIndicator.isAnimating == false)

        reactor.stub.state = ListReactor.State(isLoading: true)
        #expect(view.activityIndicator.isAnimating == true)
        reactor.stub.state.isLoading = false
        #expect(view.activityIndicator.isAnimating == false)
        #expect(reactor.currentState == ListReactor.State(isLoading: false))
    }

    @Test func turningTheStubOffRunsTheReactorAgain() {
        let reactor = ListReactor()
        reactor.isStubEnabled = true
        reactor.send(.select(1))
        #expect(reactor.stub.actions == [.select(1)])
        reactor.isStubEnabled = false
        reactor.send(.refresh)
        #expect(reactor.mutateCalls == 1)
        #expect(reactor.stub.actions == [.select(1)])
        reactor.isStubEnabled = true
        #expect(reactor.stub.actions.isEmpty)
    }

    @Test func theBagCancelsTheBindingsWhenTheViewGoes() {
        let reactor = ListReactor()
        reactor.isStubEnabled = true
        weak var weakView: ListView?
        var indicator: ListView.ActivityIndicator?
        do {
            let view = ListView()
            weakView = view
            indicator = view.activityIndicator
            view.reactor = reactor
        }
        #expect(weakView == nil)
        reactor.stub.state = ListReactor.State(isLoading: true)
        #expect(indicator?.isAnimating == false)   // nobody bound any more
    }

    @Test func anotherReactorReplacesTheBindings() {
        let first = ListReactor()
        let second = ListReactor()
        first.isStubEnabled = true
        second.isStubEnabled = true
        let view = ListView()
        view.reactor = first
        view.reactor = second
        #expect(view.bindCount == 2)
        #expect(view.reactor === second)
        first.stub.state = ListReactor.State(isLoading: true)
        #expect(view.activityIndicator.isAnimating == false)
        second.stub.state = ListReactor.State(isLoading: true)
        #expect(view.activityIndicator.isAnimating == true)
        view.refreshControl.sendValueChanged()
        #expect(first.stub.actions.isEmpty)
        #expect(second.stub.actions == [.refresh])
        view.reactor = nil
        #expect(view.bag.count == 0)
        #expect(view.reactor == nil)
    }
}
