/// A reactor in the shape ReactorKit users know, in Swift concurrency
/// instead of RxSwift: actions come in, `mutate(action:)` turns each into a
/// stream of mutations (side effects live here), and the pure
/// `reduce(state:mutation:)` folds the mutations into the state.
///
/// ```swift
/// final class ProfileReactor: Reactor {
///     enum Action: Sendable { case refresh, toggleBookmarked }
///     enum Mutation: Sendable { case setLoading(Bool), setUser(User), toggleBookmarked }
///     struct State: Sendable { var isLoading = false; var user: User?; var isBookmarked = false }
///
///     let initialState = State()
///     let runtime = ReactorRuntime()
///
///     func mutate(action: Action) -> ReactorStream<Mutation> {
///         switch action {
///         case .refresh:
///             return ReactorStream { emit in
///                 emit(.setLoading(true))
///                 emit(.setUser(await api.user()))
///                 emit(.setLoading(false))
///             }
///         case .toggleBookmarked:
///             return .just(.toggleBookmarked)
///         }
///     }
///
///     func reduce(state: State, mutation: Mutation) -> State {
///         var state = state
///         switch mutation {
///         case .setLoading(let loading): state.isLoading = loading
///         case .setUser(let user): state.user = user
///         case .toggleBookmarked: state.isBookmarked.toggle()
///         }
///         return state
///     }
/// }
///
/// reactor.send(.toggleBookmarked)
/// reactor.currentState.isBookmarked            // true: a mutation known now is reduced before send returns
/// for await state in reactor.states { … }      // the current state, then every new one
/// ```
///
/// ## The serial executor
/// A reactor is isolated to the main actor, the one serial executor on
/// which every state change happens: `reduce`, the publication of each new
/// state, observers and ``Reactor/flush()``. Never two at once, and a
/// reactor's observers see its states in order. Mutation streams run where
/// their work runs (their tasks are not on the main actor unless they say
/// so); each mutation they emit is reduced on the main actor. An action
/// sent from an observer is queued and handled once the current state has
/// been published to every observer.
///
/// ## Transform hooks
/// `transform(action:)`, `transform(mutation:)` and `transform(state:)` see
/// the streams between the stages and return the streams the reactor uses,
/// so a global stream (the current user, say) can be merged in:
///
/// ```swift
/// func transform(mutation: ReactorStream<Mutation>) -> ReactorStream<Mutation> {
///     .merge(mutation, ReactorStream(currentUser.updates).map(Mutation.setUser))
/// }
/// ```
///
/// They are called once, when the reactor's runtime starts (at its first
/// use). A hook that returns its input unchanged (the default) costs
/// nothing: the stage is a plain call. Capture the reactor weakly in a hook:
/// the streams it returns live as long as the reactor.
///
/// ## Storage
/// A protocol cannot add stored properties, so a reactor declares its
/// runtime once: `let runtime = ReactorRuntime()`. It holds the current
/// state, the observers and the pipes between the stages, and ends them
/// when the reactor is released.
@MainActor
public protocol Reactor: AnyObject {
    /// What the view sends.
    associatedtype Action: Sendable
    /// A change of the state (an action by default).
    associatedtype Mutation: Sendable = Action
    /// The view's state.
    associatedtype State: Sendable

    /// The state before any action.
    var initialState: State { get }

    /// The reactor's storage: declare it as `let runtime = ReactorRuntime()`.
    var runtime: ReactorRuntime { get }

    /// The mutations one action makes, over time. Side effects live here.
    func mutate(action: Action) -> ReactorStream<Mutation>

    /// The state after one mutation: a pure function, run on the main
    /// actor.
    func reduce(state: State, mutation: Mutation) -> State

    /// The actions the reactor handles, from those sent (default: as sent).
    func transform(action: ReactorStream<Action>) -> ReactorStream<Action>

    /// The mutations the reactor reduces, from those `mutate` made
    /// (default: as made).
    func transform(mutation: ReactorStream<Mutation>) -> ReactorStream<Mutation>

    /// The states the reactor publishes, from those `reduce` made (default:
    /// as made).
    func transform(state: ReactorStream<State>) -> ReactorStream<State>
}

extension Reactor {
    /// No mutations.
    ///
    /// - Complexity: O(1).
    public func mutate(action: Action) -> ReactorStream<Mutation> { .empty }

    /// The state unchanged.
    ///
    /// - Complexity: O(1).
    public func reduce(state: State, mutation: Mutation) -> State { state }

    /// The actions as sent.
    ///
    /// - Complexity: O(1).
    public func transform(action: ReactorStream<Action>) -> ReactorStream<Action> { action }

    /// The mutations as made.
    ///
    /// - Complexity: O(1).
    public func transform(mutation: ReactorStream<Mutation>) -> ReactorStream<Mutation> { mutation }

    /// The states as reduced.
    ///
    /// - Complexity: O(1).
    public func transform(state: ReactorStream<State>) -> ReactorStream<State> { state }
}

extension Reactor where Mutation == Action {
    /// Each action is its own mutation.
    ///
    /// - Complexity: O(1).
    public func mutate(action: Action) -> ReactorStream<Mutation> { .just(action) }
}

/// A reactor's storage: its current state, observers and pipes, made at
/// its first use and ended when the reactor is released. Declare one per
/// reactor: `let runtime = ReactorRuntime()`.
public final class ReactorRuntime: Sendable {
    /// The reactor's engine (a `_ReactorEngine<R>`), made at first use.
    @MainActor var _engine: AnyObject?

    /// An empty runtime; the reactor's engine is made at its first use.
    ///
    /// - Complexity: O(1).
    public nonisolated init() {}
}
