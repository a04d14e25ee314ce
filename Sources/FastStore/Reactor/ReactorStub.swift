/// A reactor in stub mode, for view tests: sent actions are recorded and
/// neither mutated nor reduced, and the test sets the state directly.
///
/// ```swift
/// let reactor = ProfileReactor()
/// reactor.isStubEnabled = true
/// let view = ProfileView()
/// view.reactor = reactor
///
/// view.refreshControl.sendActions(for: .valueChanged)
/// #expect(reactor.stub.actions.last == .refresh)          // the view sent it
///
/// reactor.stub.state = ProfileReactor.State(isLoading: true)
/// #expect(view.activityIndicator.isAnimating)               // the view showed it
/// ```
@MainActor
public struct ReactorStub<R: Reactor> {
    let engine: _ReactorEngine<R>

    /// The actions sent since stub mode was turned on, oldest first.
    ///
    /// - Complexity: O(1).
    public var actions: [R.Action] { engine.stubActions }

    /// The reactor's current state. Setting it publishes the new state to
    /// the observers at once, as is (not through `reduce` or
    /// `transform(state:)`).
    ///
    /// - Complexity: get O(1); set, one call per observer.
    public var state: R.State {
        get { engine.currentState }
        nonmutating set { engine.setStubState(newValue) }
    }
}

extension Reactor {
    /// Whether the reactor is in stub mode (see ``ReactorStub``). Turning
    /// it on clears the recorded actions.
    ///
    /// - Complexity: O(1).
    public var isStubEnabled: Bool {
        get { _engine.isStubEnabled }
        set {
            let engine = _engine
            if newValue && !engine.isStubEnabled { engine.stubActions = [] }
            engine.isStubEnabled = newValue
        }
    }

    /// The reactor's stub: its recorded actions and its settable state.
    ///
    /// - Complexity: O(1).
    public var stub: ReactorStub<Self> { ReactorStub(engine: _engine) }
}
