import FastStoreReSwift
import struct FastStore.Versioned
import struct FastStore.VersionedList
import Testing

// docs/MIGRATING.md, "From ReSwift" steps 1 and 2 and "From
// ReSwiftConsumer" step 1: the samples, compiled and run. The doc's
// top-level statements are in the test functions; `print` is a log. Keep
// them in step with docs/MIGRATING.md.

// MARK: Step 1: change the import

private struct Todo: Equatable { var title: String; var done = false }

private struct AppState {
    var counter = 0
    var name: String? = nil
    var todos: [Todo] = []
}

private struct Increase: Action {}
private struct Rename: Action { let name: String? }
private struct AddTodo: Action { let title: String }
private struct ToggleTodo: Action { let index: Int }

private func appReducer(action: Action, state: AppState?) -> AppState {
    var state = state ?? AppState()
    switch action {
    case is Increase: state.counter += 1
    case let action as Rename: state.name = action.name
    case let action as AddTodo: state.todos.append(Todo(title: action.title))
    case let action as ToggleTodo: state.todos[action.index].done.toggle()
    default: break
    }
    return state
}

private final class CounterViewController: StoreSubscriber {
    var label = ""
    func newState(state: Int) { label = "\(state)" }
}

// MARK: Step 2: versioned state, screen by screen

private struct VersionedAppValue {
    var counter = 0
    var name: String? = nil
    var todos: VersionedList<Todo> = []
}

private typealias VersionedAppState = Versioned<VersionedAppValue>

private func versionedReducer(action: Action, state: VersionedAppState?) -> VersionedAppState {
    var state = state ?? VersionedAppState(VersionedAppValue())
    switch action {
    case is Increase: state.counter += 1
    case let action as Rename: state.name = action.name
    case let action as AddTodo: state.todos.append(Todo(title: action.title))
    case let action as ToggleTodo: state.todos[action.index].done.toggle()
    default: break
    }
    return state
}

private final class TodoRowController: StoreSubscriber {
    let consumer = StateConsumer<VersionedAppState>()
    var rendered: [String] = []

    init(store: Store<VersionedAppState>, row: Int) {
        consumer.add({ $0.todos[row] }) { [unowned self] (new: Todo) in
            rendered.append("\(new.title) \(new.done)")
        }
        store.subscribe(self)
    }

    func newState(state: VersionedAppState) { consumer.consume(newState: state) }
}

// MARK: From ReSwiftConsumer, step 1

private final class NameViewController: StoreSubscriber {
    let consumer = StateConsumer<AppState>()
    var counterLabel = ""
    var nameLabel: String? = nil

    func viewWillAppear(appStore: Store<AppState>) {
        appStore.subscribe(self)
        consumer.add({ state in state.counter }, onCounterChanged)
        consumer.add({ state in state?.name }, onNameChanged)
    }

    func newState(state: AppState) { consumer.consume(newState: state) }

    private func onCounterChanged(old: Int?, new: Int) { counterLabel = "\(new)" }
    private func onNameChanged(old: String?, new: String?) { nameLabel = new }
}

@Suite struct MigratingFromReSwiftTests {
    @Test func stepOneChangesOnlyTheImport() {
        var log: [String] = []
        let logger: Middleware<AppState> = { dispatch, getState in
            { next in
                { action in
                    log.append("→ \(type(of: action))")
                    next(action)
                }
            }
        }
        let store = Store<AppState>(reducer: appReducer, state: nil, middleware: [logger])
        let counterView = CounterViewController()
        store.subscribe(counterView) { $0.select { $0.counter } }
        store.dispatch(Increase())
        #expect(counterView.label == "1")
        #expect(log == ["→ ReSwiftInit", "→ Increase"])
    }

    @Test func stepTwoVersionedStateKeepsTheReducerAndSubscriberLines() {
        let store = Store<VersionedAppState>(reducer: versionedReducer, state: nil)
        for title in ["milk", "eggs", "tea"] { store.dispatch(AddTodo(title: title)) }
        let row1 = TodoRowController(store: store, row: 1)
        // A second selector of row 1 on the same consumer, counting its runs.
        var runs = 0
        row1.consumer.add({ state -> Todo in
            runs += 1
            return state.todos[1]
        }) { (new: Todo) in }
        store.dispatch(Increase())
        #expect(runs == 1, "added after the last consume: first run at this one")
        store.dispatch(Increase())
        store.dispatch(ToggleTodo(index: 2))
        store.dispatch(ToggleTodo(index: 1))
        #expect(row1.rendered == ["eggs false", "eggs true"])
        #expect(runs == 2, "only the toggle of row 1 re-ran its selectors")
    }

    @Test func reSwiftConsumerStepOneChangesOnlyTheImport() {
        let appStore = Store<AppState>(reducer: appReducer, state: nil)
        let viewController = NameViewController()
        viewController.viewWillAppear(appStore: appStore)
        appStore.dispatch(Increase())
        appStore.dispatch(Rename(name: "Sonny"))
        #expect(viewController.counterLabel == "1")
        #expect(viewController.nameLabel == "Sonny")
    }
}
