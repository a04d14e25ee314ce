/// A published state with the actions that produced it: what
/// ``Store/subscribeChanges(on:_:)``, ``Store/stateChanges`` and
/// ``StateConsumer/connectChanges(to:on:)`` deliver.
///
/// `actions` are the actions reduced since the previous change delivered to
/// the same receiver, in dispatch order: one batch's on the draining thread;
/// every batch's since the last delivery where states are coalesced (the
/// main queue, a sequence whose consumer is slow). They are the actions as
/// dispatched, before the middleware: an action a middleware drops or
/// transforms is listed as dispatched, and one it dispatches through its
/// context belongs to a later batch, reduced after this one.
public struct StoreChange<State, Action> {
    /// The published state.
    public var state: State
    /// The actions reduced since the previous change delivered to this
    /// receiver, oldest first (empty for a first, current state).
    public var actions: [Action]

    /// Creates a change.
    ///
    /// - Complexity: O(1).
    public init(state: State, actions: [Action]) {
        self.state = state
        self.actions = actions
    }
}

extension StoreChange: Sendable where State: Sendable, Action: Sendable {}
extension StoreChange: Equatable where State: Equatable, Action: Equatable {}

/// A selection delivered by ``Store/changes(of:)``: the new value and the
/// value delivered before it to the same iterator.
public struct SelectionChange<Value> {
    /// The value delivered before (`nil` for the first element).
    public var previous: Value?
    /// The new value.
    public var value: Value

    /// Creates a change.
    ///
    /// - Complexity: O(1).
    public init(previous: Value?, value: Value) {
        self.previous = previous
        self.value = value
    }
}

extension SelectionChange: Sendable where Value: Sendable {}
extension SelectionChange: Equatable where Value: Equatable {}
