import FastStore

// ReSwiftConsumer's `add` overloads: the selector takes the optional state
// (`{ state in state?.foreground }`), and the callback takes the new value,
// the old and new values, or the new state and the new value.
//
// Written with FastStore's public API only. A selector that takes the state
// itself (`{ $0.counter }`) cannot take an optional one, so these never
// compete with FastStore's overloads for it.
//
// Each is called as ReSwiftConsumer calls it: when the selection changed
// (`!=`, or `predict` returned `false`) and, for the forms that take a
// non-optional value, when that value is not `nil`. Before the first consume
// the selection counts as `nil`. Callbacks run synchronously on the
// consuming thread (ReSwiftConsumer defers them to the main queue).

extension FastStore.StateConsumer {
    // MARK: Values

    /// Adds a consumer called with the previous and the new selection.
    ///
    /// - Complexity: O(1).
    @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ old: T?, _ new: T?) -> Void
    ) -> TypedConsumer<State> {
        let select: (State) -> T? = { selector($0) }
        return add(select, consumer)
    }

    /// Adds a consumer called with the new selection (`nil` included).
    ///
    /// - Complexity: O(1).
    @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ new: T?) -> Void
    ) -> TypedConsumer<State> {
        add(selector) { (_: T?, new: T?) in consumer(new) }
    }

    /// Adds a consumer called with the new selection when it is not `nil`.
    ///
    /// - Complexity: O(1).
    @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ new: T) -> Void
    ) -> TypedConsumer<State> {
        add(selector) { (_: T?, new: T?) in
            if let new { consumer(new) }
        }
    }

    /// Adds a consumer called with the previous and the new selection when
    /// neither is `nil`.
    ///
    /// - Complexity: O(1).
    @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ old: T, _ new: T) -> Void
    ) -> TypedConsumer<State> {
        add(selector) { (old: T?, new: T?) in
            if let old, let new { consumer(old, new) }
        }
    }

    /// Adds a consumer called with the previous selection and the new one
    /// when the new one is not `nil`.
    ///
    /// - Complexity: O(1).
    @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ old: T?, _ new: T) -> Void
    ) -> TypedConsumer<State> {
        add(selector) { (old: T?, new: T?) in
            if let new { consumer(old, new) }
        }
    }

    // MARK: State and value

    /// Adds a consumer called with the new state and the new selection.
    ///
    /// NB: the consumer keeps the state of its last evaluation until its
    /// next one (a copy sharing the store's storage).
    ///
    /// - Complexity: O(1).
    @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ state: State?, _ new: T?) -> Void
    ) -> TypedConsumer<State> {
        _addWithState(selector) { state, new in consumer(state, new) }
    }

    /// Adds a consumer called with the new state and the new selection when
    /// the selection is not `nil`.
    ///
    /// - Complexity: O(1).
    @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ state: State?, _ new: T) -> Void
    ) -> TypedConsumer<State> {
        _addWithState(selector) { state, new in
            if let new { consumer(state, new) }
        }
    }

    /// Adds a consumer called with the new state and the new selection.
    ///
    /// - Complexity: O(1).
    @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ state: State, _ new: T?) -> Void
    ) -> TypedConsumer<State> {
        _addWithState(selector) { state, new in consumer(state, new) }
    }

    /// Adds a consumer called with the new state and the new selection when
    /// the selection is not `nil`.
    ///
    /// - Complexity: O(1).
    @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ state: State, _ new: T) -> Void
    ) -> TypedConsumer<State> {
        _addWithState(selector) { state, new in
            if let new { consumer(state, new) }
        }
    }

    /// A consumer of `selector` whose callback also gets the state the
    /// selection was taken from: the selector notes it, and the callback,
    /// which runs right after the evaluation that found the change, reads it.
    private func _addWithState<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ state: State, _ new: T?) -> Void
    ) -> TypedConsumer<State> {
        let evaluated = _EvaluatedState<State>()
        let select: (State) -> T? = { state in
            evaluated.state = state
            return selector(state)
        }
        return add(select) { (_: T?, new: T?) in
            guard let state = evaluated.state else { return }
            consumer(state, new)
        }
    }

    // MARK: Predicted selections

    /// Adds a consumer of a selection that need not be `Equatable`, called
    /// with the previous and the new selection when `predict(old, new)` is
    /// `false` (`predict` tells whether they are the same).
    ///
    /// - Complexity: O(1).
    @discardableResult
    public func add<T>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ old: T?, _ new: T?) -> Void,
        predict: @escaping (_ old: T?, _ new: T?) -> Bool
    ) -> TypedConsumer<State> {
        let select: (State) -> T? = { selector($0) }
        return add(select, consumer, predict: predict)
    }

    /// As the `(old: T?, new: T?)` form with `predict`, called only when the
    /// new selection is not `nil`.
    ///
    /// - Complexity: O(1).
    @discardableResult
    public func add<T>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ old: T?, _ new: T) -> Void,
        predict: @escaping (_ old: T?, _ new: T?) -> Bool
    ) -> TypedConsumer<State> {
        let select: (State) -> T? = { selector($0) }
        return add(select, consumer, predict: predict)
    }
}

/// The state a consumer's selector last ran on. Touched only by the thread
/// holding the consumer's consuming turn.
private final class _EvaluatedState<State> {
    var state: State?
}
