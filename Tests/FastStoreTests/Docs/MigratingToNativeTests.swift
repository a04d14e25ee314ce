import FastStore
import Testing

// docs/MIGRATING.md, "From ReSwift" step 3 and "From ReSwiftConsumer" step
// 2: the samples, compiled and run. The doc's top-level statements are in
// the test functions; `print` and UI labels are logs. Keep them in step
// with docs/MIGRATING.md.

private struct Todo: Equatable { var title: String; var done = false }

private struct AppStateValue {
    var counter = 0
    var name: String? = nil
    var todos: VersionedList<Todo> = []
}

private typealias AppState = Versioned<AppStateValue>

private enum AppAction {
    case increase, rename(String?), addTodo(String), toggleTodo(Int)
}

private func appReducer(_ state: inout AppState, _ action: AppAction) {
    switch action {
    case .increase: state.counter += 1
    case .rename(let name): state.name = name
    case .addTodo(let title): state.todos.append(Todo(title: title))
    case .toggleTodo(let index): state.todos[index].done.toggle()
    }
}

/// ReSwiftConsumer's `CounterViewController`, connected instead of
/// subscribed.
private final class CounterViewScreen {
    let consumer = StateConsumer<AppState>()
    var subscription: StoreSubscription?
    var counterLabel = ""
    var nameLabel: String? = nil

    func viewWillAppear(store: Store<AppState, AppAction>) {
        consumer.add({ state in state.counter }, onCounterChanged)
        consumer.add({ state in state?.name }, onNameChanged)
        subscription = consumer.connect(to: store)
    }

    func viewWillDisappear() {
        subscription = nil
        consumer.removeAll()
    }

    private func onCounterChanged(old: Int?, new: Int) { counterLabel = "\(new)" }
    private func onNameChanged(old: String?, new: String?) { nameLabel = new }
}

@Suite struct MigratingToNativeTests {
    @Test func reSwiftStepThreeNativeStore() {
        var log: [String] = []
        var counterLabel = ""
        let logger = Middleware<AppState, AppAction> { context, action, next in
            log.append("→ \(action)")
            next(action)
        }
        let store = Store(state: AppState(AppStateValue()), reducer: appReducer, middleware: [logger])
        let consumer = StateConsumer<AppState>()
        consumer.add({ $0.counter }) { (new: Int) in counterLabel = "\(new)" }
        let subscription = consumer.connect(to: store)
        store.dispatch(.increase)

        #expect(counterLabel == "1")
        #expect(log == ["→ increase"])
        subscription.cancel()
    }

    @Test func reSwiftConsumerStepTwoConnects() {
        let store = Store(state: AppState(AppStateValue()), reducer: appReducer)
        let screen = CounterViewScreen()
        screen.viewWillAppear(store: store)
        store.dispatch(.increase)
        store.dispatch(.rename("Sonny"))
        #expect(screen.counterLabel == "1")
        #expect(screen.nameLabel == "Sonny")
        screen.viewWillDisappear()
        store.dispatch(.increase)
        #expect(screen.counterLabel == "1", "disconnected")
        #expect(store.subscriberCount == 0)
    }
}
