// The `add` overloads of ReSwiftConsumer's `StateConsumer`, one per
// callback shape. Array selections (`{ $0.works }` with `([String]?,
// [String])`) are ordinary `Equatable` selections.
//
// Every overload is O(1) and evaluates nothing: the consumer's first
// evaluation happens at the next consume (or at once when
// `consumeInstantly` is on and a state was consumed).
//
// NB: `@_disfavoredOverload` settles the shapes that more than one overload
// accepts, in ReSwiftConsumer's favour: an optional selection with
// `(T?, T?)` or `(T?)` callbacks is an optional consumer (a first `nil` is no
// change), not a non-optional one over `T?`; a non-optional selection with
// `(T?, T)` is a non-optional consumer. Without it, selectors written as
// multi-statement closures are ambiguous.

extension StateConsumer {
    // MARK: Non-optional selections

    /// Adds a consumer called with the previous selection (`nil` the first
    /// time) and the new one whenever the selection changes.
    ///
    /// - Complexity: O(1).
    @inlinable @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State) -> T,
        _ consumer: @escaping (_ old: T?, _ new: T) -> Void
    ) -> ConsumerHandle<State> {
        _register { id in
            ConsumerHandle._selection(id: id, baseline: nil, selector: selector, callback: _OldAndNewCallback(consumer))
        }
    }

    /// Adds a consumer called with the new selection whenever the selection
    /// changes (the first time included).
    ///
    /// - Complexity: O(1).
    @_disfavoredOverload
    @inlinable @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State) -> T,
        _ consumer: @escaping (_ new: T) -> Void
    ) -> ConsumerHandle<State> {
        _register { id in
            ConsumerHandle._selection(id: id, baseline: nil, selector: selector, callback: _NewCallback(consumer))
        }
    }

    /// Adds a consumer called with the previous and the new selection
    /// whenever the selection changes, from the second selection on (there
    /// is no previous one the first time).
    ///
    /// - Complexity: O(1).
    @_disfavoredOverload
    @inlinable @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State) -> T,
        _ consumer: @escaping (_ old: T, _ new: T) -> Void
    ) -> ConsumerHandle<State> {
        _register { id in
            ConsumerHandle._selection(id: id, baseline: nil, selector: selector, callback: _PreviousAndNewCallback(consumer))
        }
    }

    // MARK: Optional selections

    /// Adds a consumer of an optional selection, called with the previous
    /// and the new selection whenever it changes. Before the first
    /// evaluation the selection counts as `nil`, so a first `nil` is no
    /// change.
    ///
    /// - Complexity: O(1).
    @inlinable @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State) -> T?,
        _ consumer: @escaping (_ old: T?, _ new: T?) -> Void
    ) -> ConsumerHandle<State> {
        _register { id in
            // NB: after the `.some(nil)` baseline there is always a
            // previous selection.
            ConsumerHandle._selection(id: id, baseline: .some(nil), selector: selector, callback: _PreviousAndNewCallback(consumer))
        }
    }

    /// Adds a consumer of an optional selection, called with the new
    /// selection whenever it changes (a first `nil` is no change).
    ///
    /// - Complexity: O(1).
    @inlinable @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State) -> T?,
        _ consumer: @escaping (_ new: T?) -> Void
    ) -> ConsumerHandle<State> {
        _register { id in
            ConsumerHandle._selection(id: id, baseline: .some(nil), selector: selector, callback: _NewCallback(consumer))
        }
    }

    /// Adds a consumer of an optional selection, called with the previous
    /// selection and the new one whenever it changes to a value that is not
    /// `nil`.
    ///
    /// - Complexity: O(1).
    @_disfavoredOverload
    @inlinable @discardableResult
    public func add<T: Equatable>(
        _ selector: @escaping (State) -> T?,
        _ consumer: @escaping (_ old: T?, _ new: T) -> Void
    ) -> ConsumerHandle<State> {
        _register { id in
            ConsumerHandle._selection(id: id, baseline: .some(nil), selector: selector) { old, new in
                if let new { consumer(old ?? nil, new) }
            }
        }
    }

    // MARK: Predicted selections

    /// Adds a consumer whose selection need not be `Equatable`: it is called
    /// with the previous selection (`nil` the first time) and the new one
    /// whenever `predict(old, new)` returns `false` — `predict` tells
    /// whether the two are to be taken as the same, as in ReSwiftConsumer
    /// (`predict: { old, new in old == new }`).
    ///
    /// On versioned state `predict` is asked only when the selection's
    /// dependencies changed (a selection whose reads did not change is the
    /// same selection): give a `predict` that returns `true` for a selection
    /// and itself. To learn what `predict` reads of a selection, the
    /// consumer also calls `predict(new, new)` once per evaluation.
    ///
    /// - Complexity: O(1).
    @inlinable @discardableResult
    public func add<T>(
        _ selector: @escaping (State) -> T?,
        _ consumer: @escaping (_ old: T?, _ new: T?) -> Void,
        predict: @escaping (_ old: T?, _ new: T?) -> Bool
    ) -> ConsumerHandle<State> {
        _register { id in
            ConsumerHandle._predicted(id: id, selector: selector, callback: consumer, predict: predict)
        }
    }

    /// Adds a consumer whose selection need not be `Equatable`, called as
    /// the `(old: T?, new: T?)` form with `predict`, but only when the new
    /// selection is not `nil`.
    ///
    /// - Complexity: O(1).
    @inlinable @discardableResult
    public func add<T>(
        _ selector: @escaping (State) -> T?,
        _ consumer: @escaping (_ old: T?, _ new: T) -> Void,
        predict: @escaping (_ old: T?, _ new: T?) -> Bool
    ) -> ConsumerHandle<State> {
        _register { id in
            ConsumerHandle._predicted(id: id, selector: selector, callback: { old, new in
                if let new { consumer(old, new) }
            }, predict: predict)
        }
    }
}
