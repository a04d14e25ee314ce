@_spi(Testing) import FastStoreReSwift
import Testing

// ReSwift's README program (a counter app), as ReSwift users write it, with
// `import ReSwift` replaced by `import FastStoreReSwift`.

private struct AppState {
    var counter: Int = 0
    var name: String = "counter"
}

private struct CounterActionIncrease: Action {}
private struct CounterActionDecrease: Action {}
private struct SetName: Action { let name: String }

private func counterReducer(action: Action, state: AppState?) -> AppState {
    var state = state ?? AppState()
    switch action {
    case _ as CounterActionIncrease:
        state.counter += 1
    case _ as CounterActionDecrease:
        state.counter -= 1
    case let action as SetName:
        state.name = action.name
    default:
        break
    }
    return state
}

/// ReSwift's view controller, with a string for its label.
private final class CounterViewController: StoreSubscriber {
    typealias StoreSubscriberStateType = AppState
    var counterLabel = ""
    var calls = 0
    func newState(state: AppState) {
        counterLabel = "\(state.counter)"
        calls += 1
    }
}

/// Records what it receives.
private final class Recorder<Value>: StoreSubscriber {
    var received: [Value] = []
    func newState(state: Value) { received.append(state) }
}

@Suite struct ReSwiftUsageTests {
    @Test func counterAppFromTheReadme() {
        var actions: [String] = []
        let logger: Middleware<AppState> = { _, getState in
            { next in
                { action in
                    actions.append("\(type(of: action)) at \(getState()?.counter ?? -1)")
                    next(action)
                }
            }
        }
        let mainStore = Store<AppState>(reducer: counterReducer, state: nil, middleware: [logger])
        // A nil state is built by the reducer from ReSwiftInit, through the middleware.
        #expect(actions == ["ReSwiftInit at -1"])
        #expect(mainStore.state.counter == 0)

        let viewController = CounterViewController()
        mainStore.subscribe(viewController)
        #expect(viewController.counterLabel == "0", "a new subscriber gets the current state at once")

        mainStore.dispatch(CounterActionIncrease())
        #expect(viewController.counterLabel == "1", "dispatch is synchronous on the store's thread")
        mainStore.dispatch(CounterActionIncrease())
        mainStore.dispatch(CounterActionDecrease())
        #expect(viewController.counterLabel == "1")
        #expect(mainStore.state.counter == 1)
        #expect(viewController.calls == 4)
        #expect(actions.dropFirst() == [
            "CounterActionIncrease at 0", "CounterActionIncrease at 1", "CounterActionDecrease at 2",
        ])

        mainStore.unsubscribe(viewController)
        mainStore.dispatch(CounterActionIncrease())
        #expect(viewController.counterLabel == "1", "an unsubscribed subscriber is not called")
        #expect(mainStore.state.counter == 2)
    }

    @Test func middlewareCanTransformDropAndDispatch() {
        let doubleIncrease: Middleware<AppState> = { dispatch, _ in
            { next in
                { action in
                    if action is CounterActionDecrease { return }             // drop
                    if let rename = action as? SetName, rename.name == "twice" {
                        dispatch(CounterActionIncrease())                       // through the whole chain
                        dispatch(CounterActionIncrease())
                        return
                    }
                    next(action)
                }
            }
        }
        let store = Store<AppState>(reducer: counterReducer, state: AppState(), middleware: [doubleIncrease])
        store.dispatch(CounterActionDecrease())
        #expect(store.state.counter == 0)
        store.dispatch(SetName(name: "twice"))
        #expect(store.state.counter == 2)
        #expect(store.state.name == "counter")

        store.middleware = []
        store.dispatch(CounterActionDecrease())
        #expect(store.state.counter == 1, "setting middleware rebuilds the dispatch function")
    }

    @Test func selectWithSkipRepeatsByClosureAndKeyPath() {
        let store = Store<AppState>(reducer: counterReducer, state: AppState())
        let byClosure = Recorder<Int>()
        let byKeyPath = Recorder<Int>()
        let explicit = Recorder<Int>()
        store.subscribe(byClosure) { $0.select { $0.counter } }                 // Equatable: skips repeats
        store.subscribe(byKeyPath) { $0.select(\.counter) }
        store.subscribe(explicit) { $0.select(\.counter).skipRepeats { $0 == $1 } }

        store.dispatch(SetName(name: "other"))      // counter unchanged
        store.dispatch(CounterActionIncrease())
        store.dispatch(SetName(name: "again"))
        store.dispatch(CounterActionIncrease())
        for recorder in [byClosure, byKeyPath, explicit] {
            #expect(recorder.received == [0, 1, 2])
        }
    }

    @Test func repeatsPassWithoutEquatableOrWhenTheStoreSaysSo() {
        struct Box { let value: Int }   // not Equatable
        let store = Store<AppState>(reducer: counterReducer, state: AppState())
        let boxes = Recorder<Box>()
        store.subscribe(boxes) { $0.select { Box(value: $0.counter) } }
        store.dispatch(SetName(name: "x"))
        #expect(boxes.received.map(\.value) == [0, 0], "a non-Equatable selection is passed on every dispatch")

        let noSkip = Store<AppState>(reducer: counterReducer, state: AppState(), automaticallySkipsRepeats: false)
        let counters = Recorder<Int>()
        noSkip.subscribe(counters) { $0.select(\.counter) }
        noSkip.dispatch(SetName(name: "x"))
        #expect(counters.received == [0, 0])
    }

    @Test func skipWhenAndOnlyWhenJudgeEachStatePair() {
        let store = Store<AppState>(reducer: counterReducer, state: AppState(), automaticallySkipsRepeats: false)
        let skipping = Recorder<AppState>()
        let only = Recorder<AppState>()
        store.subscribe(skipping) { $0.skip(when: { old, new in old.counter == new.counter }) }
        store.subscribe(only) { $0.only(when: { _, new in new.counter % 2 == 0 }) }

        store.dispatch(CounterActionIncrease())       // 1
        store.dispatch(SetName(name: "same count"))    // 1
        store.dispatch(CounterActionIncrease())       // 2
        // The first pair (on subscribing) always passes.
        #expect(skipping.received.map(\.counter) == [0, 1, 2])
        #expect(only.received.map(\.counter) == [0, 2])
    }

    @Test func equatableStateSkipsRepeatsAutomatically() {
        struct Count: Equatable { var value = 0 }
        struct Set: Action { let value: Int }
        let store = Store<Count>(reducer: { action, state in
            var state = state ?? Count()
            if let set = action as? Set { state.value = set.value }
            return state
        }, state: nil)
        let recorder = Recorder<Count>()
        store.subscribe(recorder)
        store.dispatch(Set(value: 0))
        store.dispatch(Set(value: 3))
        store.dispatch(Set(value: 3))
        #expect(recorder.received.map(\.value) == [0, 3])
    }

    @Test func subscribersAreHeldWeakly() {
        let store = Store<AppState>(reducer: counterReducer, state: AppState())
        weak var released: CounterViewController?
        do {
            let viewController = CounterViewController()
            released = viewController
            store.subscribe(viewController)
            #expect(store._subscriptionCount == 1)
        }
        #expect(released == nil, "the store does not keep its subscriber alive")
        store.dispatch(CounterActionIncrease())
        #expect(store._subscriptionCount == 0, "a released subscriber's subscription is dropped")
    }

    @Test func storeIsReleasedWithItsMiddlewareAndSubscribers() {
        weak var released: Store<AppState>?
        let viewController = CounterViewController()
        var kept: DispatchFunction?
        do {
            let passThrough: Middleware<AppState> = { dispatch, _ in
                kept = dispatch
                return { next in { next($0) } }
            }
            let store = Store<AppState>(reducer: counterReducer, state: nil, middleware: [passThrough])
            store.subscribe(viewController) { $0.skipRepeats { $0.counter == $1.counter } }
            store.dispatch(CounterActionIncrease())
            released = store
        }
        #expect(released == nil, "no retain cycle through middleware, subscriptions or the engine")
        kept?(CounterActionIncrease())   // a kept `dispatch` outliving its store drops the action
    }

    @Test func subscribingAgainReplacesTheSubscription() {
        let store = Store<AppState>(reducer: counterReducer, state: AppState(), automaticallySkipsRepeats: false)
        let recorder = Recorder<AppState>()
        store.subscribe(recorder)
        store.subscribe(recorder) { $0.skipRepeats { $0.counter == $1.counter } }
        #expect(recorder.received.count == 2, "each subscription delivers the current state")
        store.dispatch(SetName(name: "a"))
        store.dispatch(SetName(name: "b"))
        #expect(recorder.received.count == 2, "only the second subscription is left, and it skips")
        #expect(store._subscriptionCount == 1)
    }

    /// ReSwift's `_defaultDispatch` is `open`: a subclass that overrides it
    /// sees every action that reaches the end of the middleware, the first
    /// (`ReSwiftInit`) included, and decides whether it is reduced.
    @Test func aSubclassOverridingDefaultDispatchSeesEveryAction() {
        final class CountingStore: Store<AppState>, @unchecked Sendable {
            var seen: [String] = []
            override func _defaultDispatch(action: Action) {
                seen.append("\(type(of: action))")
                if action is CounterActionDecrease { return }     // dropped
                super._defaultDispatch(action: action)
            }
        }
        let store = CountingStore(reducer: counterReducer, state: nil)
        store.dispatch(CounterActionIncrease())
        store.dispatch(CounterActionDecrease())
        #expect(store.seen == ["ReSwiftInit", "CounterActionIncrease", "CounterActionDecrease"])
        #expect(store.state.counter == 1)
    }

    @Test func deprecatedActionCreatorsThroughStoreType() {
        let store = Store<AppState>(reducer: counterReducer, state: AppState(counter: 5))
        let double: (AppState, Store<AppState>) -> Action? = { state, _ in
            state.counter > 3 ? SetName(name: "big \(state.counter)") : nil
        }
        dispatchActionCreator(double, to: store)
        #expect(store.state.name == "big 5")

        var callbackState: AppState?
        let later: (AppState, Store<AppState>, @escaping ((AppState, Store<AppState>) -> Action?) -> Void) -> Void = {
            _, _, produce in produce { _, _ in CounterActionIncrease() }
        }
        dispatchAsyncActionCreator(later, to: store) { callbackState = $0 }
        #expect(store.state.counter == 6)
        #expect(callbackState?.counter == 6)
    }
}

// The deprecated action-creator forms, reached through `StoreType`'s
// requirements (not deprecated) so that calling them does not warn.
private func dispatchActionCreator<S: StoreType>(_ creator: S.ActionCreator, to store: S) {
    store.dispatch(creator)
}

private func dispatchAsyncActionCreator<S: StoreType>(
    _ creator: S.AsyncActionCreator, to store: S, callback: S.DispatchCallback?
) {
    store.dispatch(creator, callback: callback)
}
