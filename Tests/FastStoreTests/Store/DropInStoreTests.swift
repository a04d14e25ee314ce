@_spi(Testing) import FastStore
import Testing

// The hand-written store's program, unchanged but for the import. It declares
// its own `Reducer` typealias in the tutorial; FastStore provides the same one.
private struct AppState { var currentDice: String }
private enum AppAction { case rollTheDice }
private func appReducer(_ state: inout AppState, _ action: AppAction) {
    switch action {
    case .rollTheDice:
        state.currentDice = ["⚀", "⚁", "⚂", "⚃", "⚄", "⚅"].randomElement() ?? "⚀"
    }
}
private typealias AppStore = Store<AppState, AppAction>

@Suite struct DropInStoreTests {
    @Test func handWrittenStoreProgramRunsUnchanged() {
        let reducer: Reducer<AppState, AppAction> = appReducer(_:_:)
        _ = reducer
        let store = AppStore(state: AppState(currentDice: "⚀"), reducer: appReducer(_:_:))
        #expect(store.state.currentDice == "⚀")
        var seen: Set<String> = []
        for _ in 0..<200 {
            store.dispatch(action: .rollTheDice)
            store.dispatch(.rollTheDice)
            seen.insert(store.state.currentDice)
        }
        #expect(seen.isSubset(of: ["⚀", "⚁", "⚂", "⚃", "⚄", "⚅"]))
        #expect(seen.count > 1, "400 rolls should not all land on one face")
        #expect(store.dispatchedCount == 400)
    }

    @Test func dispatchOutsideADrainIsReducedWhenItReturns() {
        let store = Store<Int, Int>(state: 0) { state, action in state += action }
        for i in 1...100 {
            store.dispatch(i)
            #expect(store.state == (1...i).reduce(0, +))
        }
    }
}

@Suite struct BatchDispatchTests {
    @Test func dispatchContentsOfReducesInOrderAsOneBatch() {
        let store = Store<[Int], Int>(state: []) { $0.append($1) }
        var notifications = 0
        let token = store.subscribe { _ in notifications += 1 }
        store.dispatch(contentsOf: 1...1_000)
        #expect(store.state == Array(1...1_000))
        #expect(notifications == 1)
        store.dispatch(contentsOf: [])
        #expect(notifications == 1, "an empty batch notifies nobody")
        #expect(store.dispatchedCount == 1_000)
        token.cancel()
    }
}
