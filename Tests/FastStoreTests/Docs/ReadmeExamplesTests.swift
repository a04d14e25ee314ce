import FastStore
import Testing

// The README's quick start ("In 20 lines", at the end), run (its text is
// compiled by `ReadmeCodeTests`); and the examples the README
// carried before the DocC articles took them (VersionedState.md), kept as
// tests of the API.

private enum ReadmeFilter: Equatable { case all, done }
private struct ReadmeSettings: Equatable { var theme: Theme = .light; enum Theme { case light, dark } }
private struct Todo: Identifiable, Equatable { let id: Int; var title: String; var done = false }
private struct TodoState {
    var todos: VersionedList<Todo>
    var filter: ReadmeFilter
    var settings: Versioned<ReadmeSettings>
}
private typealias AppState = Versioned<TodoState>
private enum AppAction { case toggle(Int), setFilter(ReadmeFilter), dark }

private func reducer(_ state: inout AppState, _ action: AppAction) {
    switch action {
    case .toggle(let i): state.todos[i].done.toggle()
    case .setFilter(let f): state.filter = f
    case .dark: state.settings.theme = .dark
    }
}

@Suite struct ReadmeExamplesTests {
    @Test func versionedStateAndConsumersExample() {
        let todos = VersionedList((0..<10).map { Todo(id: $0, title: "t\($0)") })
        let store = Store(state: AppState(TodoState(todos: todos, filter: .all, settings: Versioned(ReadmeSettings()))),
                          reducer: reducer)
        var rendered: [String] = []
        let consumer = StateConsumer<AppState>()
        consumer.add({ $0.todos[3] }) { (old: Todo?, new: Todo) in rendered.append("row3 \(new.done)") }
        consumer.add({ $0.filter }) { (new: ReadmeFilter) in rendered.append("filter \(new)") }
        consumer.add({ $0.todos.count { $0.done } }) { (old: Int?, new: Int) in rendered.append("badge \(new)") }
        let subscription = consumer.connect(to: store)
        rendered.removeAll()

        store.dispatch(.toggle(5))
        #expect(rendered == ["badge 1"], "toggling row 5 re-renders the badge, not row 3 nor the header")
        store.dispatch(.toggle(3))
        #expect(rendered == ["badge 1", "row3 true", "badge 2"])
        store.dispatch(.dark)
        store.dispatch(.setFilter(.done))
        #expect(rendered.last == "filter done")
        #expect(store.state.settings.theme == .dark)
        subscription.cancel()
    }

    @Test func collectionsExample() {
        struct Row: Equatable { var liked = false }
        var rows: VersionedList<Row> = VersionedList(Array(repeating: Row(), count: 100_000))
        let before = rows
        rows[50_000].liked = true
        let changes = rows.difference(from: before)
        var reloaded: [Int] = []
        changes.forEachBatch(delete: { _ in Issue.record("nothing deleted") },
                             insert: { _ in Issue.record("nothing inserted") },
                             reload: { reloaded += $0 })
        #expect(reloaded == [50_000])
        #expect(before[50_000].liked == false, "the older version is unchanged")
    }

    @Test func middlewareExample() {
        var log: [String] = []
        let logger = Middleware<Int, Int> { context, action, next in
            log.append("→ \(action)"); next(action); log.append("state: \(context.state)")
        }
        let store = Store(state: 0, reducer: { $0 += $1 }, middleware: [logger])
        store.dispatch(2)
        #expect(log == ["→ 2", "state: 2"])
    }
}

// README.md, "In 20 lines" (the SwiftUI view aside), run: what its comments
// claim of the consumer. `ReadmeCodeTests` compiles the README's own text;
// this copy checks the behaviour.
private enum QuickStart {
    struct Todo: Identifiable, Equatable, Codable { let id: Int; var title: String; var done = false }
    struct AppState: Codable { var todos: IdentifiedList<Todo>; var filter = "all" }
    enum AppAction { case toggle(Int), rename(Int, String) }

    static func reducer(_ state: inout Versioned<AppState>, _ action: AppAction) {
        switch action {                                       // plain reducer code
        case .toggle(let id): state.todos[id: id]?.done.toggle()
        case .rename(let id, let title): state.todos[id: id]?.title = title
        }
    }
}

@Suite struct ReadmeQuickStartTests {
    @MainActor
    @Test func aScreensConsumerRunsOnlyWhenItsRowChanges() async throws {
        typealias Todo = QuickStart.Todo
        typealias AppState = QuickStart.AppState
        let loaded = (0..<100).map { Todo(id: $0, title: "todo \($0)") }
        final class Cell { var rendered: [Todo?] = []; func render(_ todo: Todo?) { rendered.append(todo) } }
        let cell = Cell()
        let store = Store(state: Versioned(AppState(todos: IdentifiedList(loaded))), reducer: QuickStart.reducer)

        let consumer = StateConsumer<Versioned<AppState>>()
        consumer.add({ $0.todos[id: 42] }) { (new: Todo?) in cell.render(new) }
        let subscription = consumer.connect(to: store, on: .main)
        #expect(cell.rendered.count == 1, "the current row, on connecting")
        await Task.detached {                       // "from any thread"
            store.dispatch(.toggle(42))
            store.dispatch(.rename(7, "another row"))
            store.dispatch(.toggle(8))
            store.dispatch(.rename(42, "renamed"))
        }.value
        for _ in 0..<400 where cell.rendered.last??.title != "renamed" {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(cell.rendered.last??.title == "renamed")
        #expect(cell.rendered.last??.done == true)
        #expect(cell.rendered.count <= 3, "other rows' changes do not run the screen (the main queue may coalesce)")
        #expect(store.state.todos[id: 42]?.title == "renamed")
        withExtendedLifetime(subscription) {}
    }
}
