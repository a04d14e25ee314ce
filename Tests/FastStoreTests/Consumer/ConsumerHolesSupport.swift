@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

// The harness of the regression tests for the consumer's known holes
// (ConsumerHolesTests.swift): one real `Store` feeding the fast consumer
// both ways a user connects it, and the naive reference.

/// An action that runs its closure on the state: lets a test write each
/// reducer step inline.
struct Edit<S> {
    let body: (inout Versioned<S>) -> Void
    init(_ body: @escaping (inout Versioned<S>) -> Void) { self.body = body }
}

/// A store of `Versioned<S>` reduced by ``Edit`` actions.
func editStore<S>(_ initial: S) -> Store<Versioned<S>, Edit<S>> {
    Store(state: Versioned(initial)) { state, edit in edit.body(&state) }
}

/// One store and three consumers of it, given the same selectors:
/// - `connected`, a `StateConsumer` fed by `connect(to:)`;
/// - `subscribed`, a `StateConsumer` fed by the raw ReSwiftConsumer pattern
///   (`consume(newState: store.state)`, then `store.subscribe {
///   consumer.consume(newState: $0) }`);
/// - `naive`, the ``NaiveConsumer`` reference, subscribed the same way.
///
/// ``check(_:sourceLocation:)`` takes the callbacks each delivered since the
/// last check, expects both fast consumers to match the naive one, and
/// returns the naive one's (so a test can also pin what it expects).
final class StoreTrio<S> {
    typealias State = Versioned<S>

    let store: Store<State, Edit<S>>
    let connected = StateConsumer<State>()
    let subscribed = StateConsumer<State>()
    let naive = NaiveConsumer<State>()
    private let connectedLog = EventLog(), subscribedLog = EventLog(), naiveLog = EventLog()
    private var subscriptions: [StoreSubscription] = []
    private(set) var names: [String] = []

    init(_ initial: S) {
        store = editStore(initial)
    }

    /// Adds one consumer of `select` to all three. Callbacks are logged
    /// through `log` (default: the selection itself), e.g. to log a
    /// description where the selection is not equal to itself.
    func add<T: Hashable>(
        _ name: String, _ select: @escaping (State) -> T,
        log: @escaping (T) -> AnyHashable = { AnyHashable($0) }
    ) {
        let id = names.count
        names.append(name)
        let connectedLog = connectedLog, subscribedLog = subscribedLog, naiveLog = naiveLog
        connected.add(select) { (old: T?, new: T) in connectedLog.append(id, old.map(log), log(new)) }
        subscribed.add(select) { (old: T?, new: T) in subscribedLog.append(id, old.map(log), log(new)) }
        naive.add(
            id: id, baselineIsNil: false, select: { AnyHashable(select($0)) },
            // NB: the selections' own `==` (not `AnyHashable`'s), as the
            // fast consumer compares them.
            same: { ($0?.base as? T) == ($1?.base as? T) }
        ) { old, new in
            naiveLog.append(id, (old ?? nil).map { log($0.base as! T) }, new.map { log($0.base as! T) })
        }
    }

    /// Connects the three consumers to the store; each consumes the current
    /// state at once.
    func start() {
        subscriptions.append(connected.connect(to: store))
        let subscribed = subscribed, naive = naive
        subscribed.consume(newState: store.state)
        subscriptions.append(store.subscribe { subscribed.consume(newState: $0) })
        naive.consume(newState: store.state)
        subscriptions.append(store.subscribe { naive.consume(newState: $0) })
    }

    /// Dispatches one reducer step.
    func dispatch(_ body: @escaping (inout State) -> Void) {
        store.dispatch(Edit(body))
    }

    /// The callbacks since the last check; expects both fast consumers to
    /// have delivered exactly what the naive one did. Returns the naive
    /// consumer's.
    @discardableResult
    func check(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) -> [ConsumerEvent] {
        let naiveEvents = naiveLog.take()
        let connectedEvents = connectedLog.take()
        let subscribedEvents = subscribedLog.take()
        let legend = names.enumerated().map { "#\($0.offset) \($0.element)" }.joined(separator: ", ")
        #expect(connectedEvents == naiveEvents, "connect(to:), after \(step) [\(legend)]", sourceLocation: sourceLocation)
        #expect(subscribedEvents == naiveEvents, "store.subscribe { consume }, after \(step) [\(legend)]",
                sourceLocation: sourceLocation)
        return naiveEvents
    }

    deinit {
        for subscription in subscriptions { subscription.cancel() }
    }
}

/// `body(&value)`: one `inout` access (a `_modify` of whatever `value` is)
/// for the length of `body`.
func modify<T>(_ value: inout T, _ body: (inout T) -> Void) {
    body(&value)
}

/// An `inout` access that changes nothing.
func visit<T>(_ value: inout T) {}
