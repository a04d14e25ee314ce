/// A reducer: applies one action to the state, in place.
///
/// The same shape as the hand-written `Store` people keep in their apps, so
/// their reducers move over unchanged:
///
/// ```swift
/// func appReducer(_ state: inout AppState, _ action: AppAction) {
///     switch action {
///     case .rollTheDice: state.currentDice = ["⚀", "⚁", "⚂"].randomElement()!
///     }
/// }
/// let store = Store(state: AppState(currentDice: "⚀"), reducer: appReducer(_:_:))
/// ```
///
/// FastStore calls the reducer on the thread that drains the store's queue,
/// one action at a time, never concurrently with itself.
public typealias Reducer<State, Action> = (inout State, Action) -> Void
