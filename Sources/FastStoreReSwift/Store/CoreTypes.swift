// ReSwift 6's core vocabulary, same names and shapes, so that code written
// against ReSwift compiles against this module unchanged.

/// An action: anything dispatched to a ``Store``. Reducers tell actions apart
/// by type (`switch action { case let action as Increase: ... }`).
public protocol Action {}

/// The action a ``Store`` dispatches when it is created without a state, so
/// that the reducer builds the initial state (`state ?? AppState()`).
public struct ReSwiftInit: Action {
    public init() {}
}

/// Conforming a state to `StateType` is not needed (kept for source
/// compatibility, deprecated as in ReSwift 6).
@available(*, deprecated, message: "Conforming your state to `StateType` is no longer necessary. You may remove this conformance.")
public protocol StateType {}

/// A reducer: the new state for an action and the current state (`nil` only
/// for the ``ReSwiftInit`` dispatched by a store created without a state).
///
/// The store calls it on the thread that drains its queue, one action at a
/// time, never concurrently with itself.
public typealias Reducer<ReducerStateType> =
    (_ action: Action, _ state: ReducerStateType?) -> ReducerStateType

/// A function that takes an action (a store's `dispatch`, or the next step of
/// a middleware chain).
public typealias DispatchFunction = (Action) -> Void

/// A middleware, curried as in ReSwift: given the store's `dispatch` and a
/// state getter, it wraps the next dispatch function.
///
/// ```swift
/// let logger: Middleware<AppState> = { dispatch, getState in
///     { next in
///         { action in
///             print("→", action)
///             next(action)
///         }
///     }
/// }
/// ```
///
/// Middleware runs on the dispatching thread, before the action reaches the
/// store's queue; `next` may be called later or from another thread
/// (thunks, delays). `dispatch` goes through the whole chain again.
public typealias Middleware<State> = (@escaping DispatchFunction, @escaping () -> State?)
    -> (@escaping DispatchFunction) -> DispatchFunction

/// ReSwift's dictionary coding protocol (kept for source compatibility).
public protocol Coding {
    init?(dictionary: [String: AnyObject])
    var dictionaryRepresentation: [String: AnyObject] { get }
}
