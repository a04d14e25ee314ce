import Atomics
#if canImport(Combine)
import Combine
import Foundation
#endif
import Observation

/// A store of a part of another store's state, accepting the part's own
/// actions: pointfree's "view" of a store, TCA's `scope`.
///
/// ```swift
/// let settings = store.scope(state: \.settings, action: { .settings($0) })
/// settings.dispatch(.setTheme(.dark))          // reaches `store` as .settings(.setTheme(.dark))
/// let row = store.scope(state: { $0.rows[id: 42] }, action: { .row(42, $0) })
/// let title = row.scope(state: { $0?.title }, action: { $0 })   // scopes of scopes
/// ```
///
/// Its `state` is the root store's latest state seen through the `state`
/// closures; its `dispatch` goes to the root store through the `action`
/// closures. It holds no state of its own and runs no reducer.
///
/// ## Notification
/// A subscriber (``subscribe(on:_:)``, a connected ``StateConsumer``, an
/// Observation tracker) is called after a batch of the root store changes
/// the scope's state, and only then:
/// - a versioned node (``Versioned``, a versioned collection) changes when
///   its stamp changes, that is, when something at or below it was
///   written;
/// - another `Equatable` state, when the new value is not `==` to the old;
/// - any other state, whenever something its `state` closures read was
///   written.
///
/// Every scope of a root store, at any depth, is notified through one
/// ``StateConsumer`` of the root state connected to it once. With
/// versioned root state, a batch evaluates only the scopes whose `state`
/// closures read what the batch wrote, found through the drain's journal:
/// the cost per action is O(changed), not O(live scopes), and a scope of a
/// row of a long list costs nothing when another row changes. (With plain
/// state the consumer compares every scope's state: O(live scopes).)
///
/// ## Lifetime
/// A scoped store keeps its root store alive, as a child store does in
/// TCA: it dispatches to it. The root never holds a scope. A subscription
/// lasts as long as its token, and holds nothing but the notification
/// machinery (not the root store); a released scope with no subscription
/// costs nothing.
///
/// ## Threading
/// As ``Store``: any thread. A scope's `state` closures run on the thread
/// that reads `state`, and on the draining thread (or the main thread for
/// `.main` subscriptions) when the root store notifies.
///
/// `state` closures must not fail on any state the root store can hold: a
/// scope of a row that may be removed should read it by id, optionally
/// (`{ $0.rows[id: id] }`), not by a position that may no longer exist.
public final class ScopedStore<State, Action> {
    // NB: `@unchecked Sendable`: immutable but for `_observing`, an atomic
    // flag, and `_observation`, guarded by `_lock`.
    let _lens: any _ScopeLens<State, Action>
    let _registrar = ObservationRegistrar()
    let _stateKeyPath: KeyPath<ScopedStore<State, Action>, State>
    let _observing = ManagedAtomic<Bool>(false)
    let _lock = _Lock()
    /// The subscription that tells Observation trackers (and Combine) about
    /// changes, made at the first read of `state`.
    var _observation: StoreSubscription?

    #if canImport(Combine)
    /// Combine's change publisher, for SwiftUI's `ObservableObject`
    /// support: fires on the main thread when the scope's state changes.
    public let objectWillChange = ObservableObjectPublisher()
    #endif

    init(lens: any _ScopeLens<State, Action>) {
        _lens = lens
        _stateKeyPath = \ScopedStore<State, Action>.state
    }

    /// The scope's part of the root store's latest state.
    ///
    /// Reading it registers an Observation access that changes only when
    /// the scope's state does (not at every change of the root state). It
    /// begins no look of its own (see docs/observation.md): what the
    /// tracking reads from the scope's state next is filed under the
    /// thread's current look, checked against that look's `state` read.
    ///
    /// - Complexity: the `state` closures of every level of scoping, applied
    ///   to the root's state (one lock to read it). The first read also
    ///   subscribes the scope for Observation: O(1).
    public var state: State {
        if !_observing.load(ordering: .acquiring) { _startObserving() }
        _registrar.access(self, keyPath: _stateKeyPath)
        return _lens.read()
    }

    /// Dispatches an action to the root store, embedded by the `action`
    /// closures of every level of scoping. See ``Store/dispatch(_:)`` for
    /// when `state` reflects it.
    ///
    /// - Complexity: the `action` closures, then as ``Store/dispatch(_:)``.
    public func dispatch(_ action: Action) {
        _lens.dispatch(action)
    }

    /// Dispatches an action (the hand-written store's spelling).
    ///
    /// - Complexity: as ``dispatch(_:)``.
    public func dispatch(action: Action) {
        _lens.dispatch(action)
    }

    /// Calls `body` with the scope's new state after every batch of the
    /// root store that changes it (see "Notification" above), until the
    /// returned subscription is cancelled or released.
    ///
    /// The current state is not delivered on subscribing: read ``state``.
    /// Subscribers of all the scopes of a root store on one thread are
    /// called in subscription order.
    ///
    /// - Parameters:
    ///   - thread: Where `body` runs (default: the root's draining thread).
    ///   - body: The subscriber.
    /// - Returns: The subscription. Keep it: releasing it unsubscribes.
    /// - Complexity: O(1) to subscribe (the first subscription of a root
    ///   store on a thread also subscribes to the root store). Per batch of
    ///   the root store with versioned state: O(1) when the batch wrote
    ///   nothing the `state` closures read; else the closures, plus the
    ///   comparison.
    public func subscribe(
        on thread: NotificationThread = .drainThread,
        _ body: @escaping (State) -> Void
    ) -> StoreSubscription {
        _lens.subscribe(on: thread, body)
    }

    /// A store of a part of this scope's state, accepting the part's own
    /// actions: a scope of a scope. It talks to the root store directly.
    ///
    /// - Parameters:
    ///   - toChildState: The part, from this scope's state.
    ///   - fromChildAction: This scope's action for a child action.
    /// - Complexity: O(1).
    public func scope<ChildState, ChildAction>(
        state toChildState: @escaping (State) -> ChildState,
        action fromChildAction: @escaping (ChildAction) -> Action
    ) -> ScopedStore<ChildState, ChildAction> {
        ScopedStore<ChildState, ChildAction>(lens: _lens.scope(toChildState, fromChildAction))
    }

    // MARK: Observation

    /// Subscribes the scope to its own changes, to tell Observation (and
    /// Combine) about them; once.
    func _startObserving() {
        _lock.lock()
        defer { _lock.unlock() }
        guard _observation == nil else { return }
        _observation = _lens.subscribe(on: .drainThread) { [weak self] _ in self?._didChange() }
        _observing.store(true, ordering: .releasing)
    }

    func _didChange() {
        // NB: the root already published the new state; trackers registered
        // on `state` learn of it now (as with a store, a tracker's onChange
        // runs once per registration).
        _registrar.willSet(self, keyPath: _stateKeyPath)
        _registrar.didSet(self, keyPath: _stateKeyPath)
        #if canImport(Combine)
        if Thread.isMainThread {
            objectWillChange.send()
        } else {
            let publisher = _UncheckedSendable(objectWillChange)
            DispatchQueue.main.async { publisher.value.send() }
        }
        #endif
    }
}

/// A scoped store participates in Observation: reading
/// ``ScopedStore/state`` inside `withObservationTracking` registers an
/// access that changes when the scope's state changes.
extension ScopedStore: Observable {}

#if canImport(Combine)
/// SwiftUI's `ObservableObject`: `objectWillChange` fires on the main
/// thread when the scope's state changes (once its `state` was read).
extension ScopedStore: ObservableObject {}
#endif

extension ScopedStore: StoreProtocol {}

extension ScopedStore: @unchecked Sendable where State: Sendable, Action: Sendable {}
