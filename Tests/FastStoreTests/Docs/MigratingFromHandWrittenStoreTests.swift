import FastStore
import Testing
#if canImport(SwiftUI)
import SwiftUI
#endif

// docs/MIGRATING.md, "From a hand-written store": the tutorial's program
// (seed 003) with its `Store` class and `Reducer` typealias deleted and
// `import FastStore` added, compiled and run; its SwiftUI part where
// SwiftUI exists. Keep in step with docs/MIGRATING.md.

private struct AppState {
    var currentDice: String
}

private enum AppAction {
    case rollTheDice
}

private func appReducer(_ state: inout AppState, _ action: AppAction) -> Void {
    switch action {
    case .rollTheDice:
        state.currentDice = [
            "⚀", "⚁", "⚂", "⚃", "⚄", "⚅",
        ].randomElement() ?? "⚀"
    }
}

private typealias AppStore = Store<AppState, AppAction>

#if canImport(SwiftUI)
private struct DiceView: View {
    @EnvironmentObject var store: AppStore

    var body: some View {
        Button(store.state.currentDice) { store.dispatch(action: .rollTheDice) }
    }
}

private struct ContentView: View {
    var body: some View {
        let store = AppStore(
            state: AppState.init(currentDice: "⚀"),
            reducer: appReducer(_:_:)
        )
        DiceView().environmentObject(store)
    }
}
#endif

@Suite struct MigratingFromHandWrittenStoreTests {
    @Test func theTutorialProgramRunsOnFastStore() {
        let store = AppStore(
            state: AppState.init(currentDice: "⚀"),
            reducer: appReducer(_:_:)
        )
        var faces: Set<String> = []
        for _ in 0..<100 {
            store.dispatch(action: .rollTheDice)
            faces.insert(store.state.currentDice)
        }
        #expect(faces.isSubset(of: ["⚀", "⚁", "⚂", "⚃", "⚄", "⚅"]))
        #expect(faces.count > 1)
    }

    @Test func consumersRenderOnlyWhatChanged() {
        let store = AppStore(state: AppState(currentDice: "⚀"), reducer: appReducer)
        var rendered: [String] = []
        let consumer = StateConsumer<AppState>()
        consumer.add({ $0.currentDice }) { (new: String) in rendered.append(new) }
        let subscription = consumer.connect(to: store)
        for _ in 0..<50 { store.dispatch(.rollTheDice) }
        #expect(rendered.first == "⚀")
        #expect(rendered.last == store.state.currentDice)
        #expect(zip(rendered, rendered.dropFirst()).allSatisfy { $0 != $1 }, "called on changes only")
        subscription.cancel()
    }
}
