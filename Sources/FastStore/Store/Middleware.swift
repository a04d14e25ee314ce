/// Middleware sees every action before the reducer and decides what reaches
/// it: pass it on, drop it, transform it, add actions, or dispatch some later.
///
/// A middleware calls `next` zero or more times, synchronously, with the
/// action(s) the rest of the chain (later middleware, then the reducer) should
/// handle:
///
/// ```swift
/// let logger = Middleware<AppState, AppAction> { context, action, next in
///     print("→", action)
///     next(action)                               // pass
///     print("state:", context.state)             // the state after this action
/// }
/// let dropNoOps = Middleware<AppState, AppAction> { _, action, next in
///     if case .noOp = action { return }          // drop
///     next(action)
/// }
/// let debounce = Middleware<AppState, AppAction> { context, action, next in
///     guard case .search(let text) = action else { return next(action) }
///     Task { [context] in                        // delay: dispatch again later
///         try? await Task.sleep(for: .milliseconds(300))
///         context.dispatch(.runSearch(text))
///     }
/// }
/// ```
///
/// Middleware runs on the draining thread, inside the batch: `context.state`
/// is the working state with every earlier action of the batch applied, and
/// `context.dispatch` queues an action behind those already queued (it is
/// never reduced re-entrantly). An action dispatched later through a kept
/// context goes through the whole chain again.
public struct Middleware<State, Action> {
    /// The rest of the chain for one action. Call it synchronously.
    public typealias Next = (Action) -> Void

    @usableFromInline
    let body: (MiddlewareContext<State, Action>, Action, Next) -> Void

    /// Creates a middleware from a closure `(context, action, next)`.
    public init(_ body: @escaping (_ context: MiddlewareContext<State, Action>, _ action: Action, _ next: Next) -> Void) {
        self.body = body
    }
}

/// What a middleware can reach: the state and the store's dispatch.
public struct MiddlewareContext<State, Action> {
    @usableFromInline weak var _store: Store<State, Action>?

    @inlinable init(store: Store<State, Action>) { _store = store }

    /// The state as reduced so far: inside the drain, the working state of the
    /// current batch; elsewhere (a context kept for later), the store's
    /// published state. Another store's drain that this store's middleware,
    /// reducer or subscriber started by dispatching into it is elsewhere: its
    /// code sees this store's published state, as ``Store/state`` gives it.
    ///
    /// - Precondition: the store is alive.
    public var state: State {
        guard let store = _store else {
            preconditionFailure("FastStore: MiddlewareContext.state read after its Store was deallocated")
        }
        return store._middlewareState
    }

    /// Dispatches an action to the store (through the whole middleware chain).
    /// From inside the drain it is queued behind the actions already queued.
    /// Does nothing once the store is gone.
    public func dispatch(_ action: Action) {
        _store?.dispatch(action)
    }
}

extension MiddlewareContext: @unchecked Sendable where State: Sendable, Action: Sendable {}
