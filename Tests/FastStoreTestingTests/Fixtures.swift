import Dispatch
import FastStore
import FastStoreTesting
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the process runs with ThreadSanitizer's runtime.
let runsUnderThreadSanitizer: Bool = {
    guard let process = dlopen(nil, RTLD_NOW) else { return false }
    defer { dlclose(process) }
    return dlsym(process, "__tsan_init") != nil
}()

struct Row: Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var isDone = false
}

struct Settings: Equatable, Sendable {
    var theme = "light"
    var fontSize = 12
}

enum Mode: Equatable, Sendable {
    case idle
    case editing(id: Int, draft: String)
}

struct Counter: Equatable, Sendable {
    var count = 0
    var text = ""
    var isLoading = false
    var history: [Int] = []
    var flags: [String: Bool] = [:]
    var mode: Mode = .idle
    var selection: Int? = nil
    var settings = Versioned(Settings())
    var rows: IdentifiedList<Row> = []
    var archive: IdentifiedList<Row> = []
    var tags: VersionedList<String> = []
    var scores: VersionedDictionary<String, Int> = [:]
}

enum CounterAction: Equatable, Sendable {
    case increment
    case incrementAndLog
    case set(Int)
    case rename(id: Int, title: String)
    case setTheme(String)
    case load
    case loadLater
    case loaded(Int)
    case noop
}

func counterReducer(_ state: inout Counter, _ action: CounterAction) {
    switch action {
    case .increment:
        state.count += 1
    case .incrementAndLog:
        state.count += 1
        state.history.append(state.count)
    case .set(let value):
        state.count = value
    case .rename(let id, let title):
        state.rows[id: id]?.title = title
    case .setTheme(let theme):
        state.settings.theme = theme
    case .load, .loadLater:
        state.isLoading = true
    case .loaded(let value):
        state.isLoading = false
        state.count = value
    case .noop:
        break
    }
}

/// Dispatches `.loaded(42)` right after `.load`, and `.loaded(7)` from
/// another thread a little after `.loadLater`.
func makeLoader() -> Middleware<Counter, CounterAction> {
Middleware { context, action, next in
    next(action)
    switch action {
    case .load:
        context.dispatch(.loaded(42))
    case .loadLater:
        // NB: from a dispatch queue, not a `Task`: with the whole suite
        // running, synchronous tests can hold every thread of the
        // cooperative pool for minutes (CI saw a task not run in 60 s).
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(20)) {
            context.dispatch(.loaded(7))
        }
    default:
        break
    }
}
}

func makeStore(_ state: Counter = Counter()) -> TestStoreOfCounter {
    TestStoreOfCounter(initialState: state, reducer: counterReducer, middleware: [makeLoader()])
}

typealias TestStoreOfCounter = TestStore<Counter, CounterAction>
