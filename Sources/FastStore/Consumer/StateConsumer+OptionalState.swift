// ReSwiftConsumer's own `add` overloads: the selector takes the optional
// state (`{ state in state?.foreground }`), and the callback takes the new
// value, the old and new values, or the new state and the new value —
// every shape of ReSwiftConsumer's `StateConsumer.add`, so that its README
// examples compile unchanged against FastStore's consumer.
//
// Each is called as ReSwiftConsumer calls it: when the selection changed
// (`!=`, or `predict` returned `false`) and, for the forms that take a
// non-optional value, when that value is not `nil`. Before the first
// evaluation the selection counts as `nil`. The selector is never given
// `nil`: a consumer consumes states, not their absence. Callbacks run
// synchronously on the consuming thread (ReSwiftConsumer defers them to the
// main queue). Every overload is O(1) and evaluates nothing, as those of
// StateConsumer+Add.swift, to which they forward.
//
// NB: every overload here is `@_disfavoredOverload`, so that a selector
// both overload sets accept goes to StateConsumer+Add.swift as it did
// before these existed. A selector that reads a member (`{ $0.counter }`,
// `{ state in state?.counter }`) fits only one set, but one that does not
// (`{ $0 }`, `{ _ in 1 }`) fits both, and a callback fits several shapes
// through function conversions (an `(Int?, Int?)` function is also an
// `(Int?, Int)` one). Disfavoring the whole set keeps the ranking within
// each set and lets StateConsumer+Add.swift's favoured forms win across
// them; the two whole-state forms at the end settle `{ $0 }` against its
// disfavored `(T)` and `(T, T)` forms. StateConsumerSelectorResolutionTests
// checks both sets.

extension StateConsumer {
    // MARK: Values

    /// Adds a consumer of an optional-state selector, called with the
    /// previous and the new selection whenever it changes (a first `nil` is
    /// no change). ReSwiftConsumer's `(T?, T?)` form.
    ///
    /// - Complexity: O(1).
    @_disfavoredOverload
    @inlinable @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ old: T?, _ new: T?) -> Void
    ) -> ConsumerHandle<State> {
        let select: (State) -> T? = { selector($0) }
        return add(select, consumer)
    }

    /// Adds a consumer of an optional-state selector, called with the new
    /// selection (`nil` included) whenever it changes. ReSwiftConsumer's
    /// `(T?)` form.
    ///
    /// - Complexity: O(1).
    @_disfavoredOverload
    @inlinable @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ new: T?) -> Void
    ) -> ConsumerHandle<State> {
        add(selector) { (_: T?, new: T?) in consumer(new) }
    }

    /// Adds a consumer of an optional-state selector, called with the new
    /// selection whenever it changes to a value that is not `nil`.
    /// ReSwiftConsumer's `(T)` form.
    ///
    /// - Complexity: O(1).
    @_disfavoredOverload
    @inlinable @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ new: T) -> Void
    ) -> ConsumerHandle<State> {
        add(selector) { (_: T?, new: T?) in
            if let new { consumer(new) }
        }
    }

    /// Adds a consumer of an optional-state selector, called with the
    /// previous and the new selection whenever it changes and neither is
    /// `nil`. ReSwiftConsumer's `(T, T)` form.
    ///
    /// - Complexity: O(1).
    @_disfavoredOverload
    @inlinable @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ old: T, _ new: T) -> Void
    ) -> ConsumerHandle<State> {
        add(selector) { (old: T?, new: T?) in
            if let old, let new { consumer(old, new) }
        }
    }

    /// Adds a consumer of an optional-state selector, called with the
    /// previous selection and the new one whenever it changes to a value
    /// that is not `nil`. ReSwiftConsumer's `(T?, T)` form.
    ///
    /// - Complexity: O(1).
    @_disfavoredOverload
    @inlinable @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ old: T?, _ new: T) -> Void
    ) -> ConsumerHandle<State> {
        add(selector) { (old: T?, new: T?) in
            if let new { consumer(old, new) }
        }
    }

    // MARK: State and value

    /// Adds a consumer called with the new state and the new selection
    /// whenever the selection changes. ReSwiftConsumer's `(S?, T?)` form.
    ///
    /// NB: the consumer keeps the state of its last evaluation until its
    /// next one (a copy sharing the store's storage, not a copy of its own).
    ///
    /// - Complexity: O(1).
    @_disfavoredOverload
    @inlinable @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ state: State?, _ new: T?) -> Void
    ) -> ConsumerHandle<State> {
        _addWithState(selector) { state, new in consumer(state, new) }
    }

    /// Adds a consumer called with the new state and the new selection
    /// whenever the selection changes to a value that is not `nil`.
    /// ReSwiftConsumer's `(S?, T)` form.
    ///
    /// - Complexity: O(1).
    @_disfavoredOverload
    @inlinable @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ state: State?, _ new: T) -> Void
    ) -> ConsumerHandle<State> {
        _addWithState(selector) { state, new in
            if let new { consumer(state, new) }
        }
    }

    /// Adds a consumer called with the new state and the new selection
    /// whenever the selection changes. ReSwiftConsumer's `(S, T?)` form.
    ///
    /// - Complexity: O(1).
    @_disfavoredOverload
    @inlinable @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ state: State, _ new: T?) -> Void
    ) -> ConsumerHandle<State> {
        _addWithState(selector) { state, new in consumer(state, new) }
    }

    /// Adds a consumer called with the new state and the new selection
    /// whenever the selection changes to a value that is not `nil`.
    /// ReSwiftConsumer's `(S, T)` form.
    ///
    /// - Complexity: O(1).
    @_disfavoredOverload
    @inlinable @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ state: State, _ new: T) -> Void
    ) -> ConsumerHandle<State> {
        _addWithState(selector) { state, new in
            if let new { consumer(state, new) }
        }
    }

    /// A consumer of `selector` whose callback also gets the state the
    /// selection was taken from: the selector notes it, and the callback,
    /// which runs right after the evaluation that found the change, reads it.
    @inlinable
    internal func _addWithState<T: Equatable>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ state: State, _ new: T?) -> Void
    ) -> ConsumerHandle<State> {
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

    /// Adds a consumer of an optional-state selector whose selection need
    /// not be `Equatable`, called with the previous and the new selection
    /// when `predict(old, new)` is `false` (`predict` tells whether they are
    /// the same). See the `(State) -> T?` form for how `predict` is asked.
    ///
    /// - Complexity: O(1).
    @_disfavoredOverload
    @inlinable @discardableResult
    public func add<T>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ old: T?, _ new: T?) -> Void,
        predict: @escaping (_ old: T?, _ new: T?) -> Bool
    ) -> ConsumerHandle<State> {
        let select: (State) -> T? = { selector($0) }
        return add(select, consumer, predict: predict)
    }

    /// As the `(old: T?, new: T?)` form with `predict`, called only when the
    /// new selection is not `nil`.
    ///
    /// - Complexity: O(1).
    @_disfavoredOverload
    @inlinable @discardableResult
    public func add<T>(
        _ selector: @escaping (State?) -> T?,
        _ consumer: @escaping (_ old: T?, _ new: T) -> Void,
        predict: @escaping (_ old: T?, _ new: T?) -> Bool
    ) -> ConsumerHandle<State> {
        let select: (State) -> T? = { selector($0) }
        return add(select, consumer, predict: predict)
    }
}

/// The state a consumer's selector last ran on, for the callbacks that take
/// the state. Touched only by the thread holding the consumer's consuming
/// turn.
@usableFromInline
internal final class _EvaluatedState<State> {
    @usableFromInline var state: State?
    @inlinable init() {}
}

// MARK: The whole state as selection

extension StateConsumer where State: Equatable {
    /// Adds a consumer of the whole state (`{ $0 }`), called with the new
    /// state whenever it changes (the first time included): the `(new: T)`
    /// form with `T == State`.
    ///
    /// NB: spelled out so that `{ $0 }`, which also fits the optional-state
    /// form, is not ambiguous; see the note at the top of this file.
    ///
    /// - Complexity: O(1).
    @_disfavoredOverload
    @inlinable @discardableResult
    public func add(
        _ selector: @escaping (State) -> State,
        _ consumer: @escaping (_ new: State) -> Void
    ) -> ConsumerHandle<State> {
        _register { id in
            ConsumerHandle._selection(id: id, baseline: nil, selector: selector, callback: _NewCallback(consumer))
        }
    }

    /// Adds a consumer of the whole state (`{ $0 }`), called with the
    /// previous and the new state whenever it changes, from the second
    /// state on: the `(old: T, new: T)` form with `T == State`.
    ///
    /// - Complexity: O(1).
    @_disfavoredOverload
    @inlinable @discardableResult
    public func add(
        _ selector: @escaping (State) -> State,
        _ consumer: @escaping (_ old: State, _ new: State) -> Void
    ) -> ConsumerHandle<State> {
        _register { id in
            ConsumerHandle._selection(id: id, baseline: nil, selector: selector, callback: _PreviousAndNewCallback(consumer))
        }
    }
}
