import FastStore
import Foundation
import Testing

// The "History" and "Patches" examples (once the README's; now the DocC
// article Sources/FastStore/FastStore.docc/HistoryAndPatches.md), run as written (with a
// smaller list: the sizes are the benchmarks' business).

private struct Todo: Codable, Equatable, Identifiable, Sendable {
    var id: Int
    var title: String
    var done = false
}
private struct TodoState: Codable, Equatable, Sendable {
    var todos: IdentifiedList<Versioned<Todo>>
}
private typealias TodoApp = Versioned<TodoState>
private enum TodoAction: Sendable { case toggle(id: Int) }

private func makeTodoStore(count: Int) -> Store<TodoApp, TodoAction> {
    let todos = IdentifiedList((0 ..< count).map { Versioned(Todo(id: $0, title: "todo \($0)")) })
    return Store(state: TodoApp(TodoState(todos: todos))) { state, action in
        switch action {
        case .toggle(let id): state.todos[id: id]?.done.toggle()
        }
    }
}

@Suite struct ReadmeHistoryAndPatchExamplesTests {
    @Test func historyExample() throws {
        let store = makeTodoStore(count: 100)
        let start = store.state
        let history = StoreHistory(store, limit: .entries(1_000))
        store.dispatch(.toggle(id: 42))
        let toggled = store.state
        try history.undo()
        #expect(store.state == start)
        try history.redo()
        #expect(store.state == toggled)
        try history.jump(to: history.indices.lowerBound)
        #expect(store.state == start)
        try history.redo()
        #expect(history[history.currentIndex]?.actions.count == 1)
        #expect(throws: StoreHistoryError.self) { try history.jump(to: history.indices.upperBound + 1) }
    }

    @Test func patchExample() throws {
        let store = makeTodoStore(count: 1_000)
        let before = store.state
        store.dispatch(.toggle(id: 424))
        let patch = try StatePatch(from: before, to: store.state)
        #expect(patch.description.contains("todos[id: 424].done: false → true"))
        let json = try JSONEncoder().encode(patch)
        #expect(json.count <= 200)
        let again = try patch.apply(to: before)
        #expect(again == store.state)
        let back = try patch.inverted().apply(to: store.state)
        #expect(back == before)
        let decoded = try JSONDecoder().decode(StatePatch<TodoApp>.self, from: json)
        #expect(decoded == patch)
    }
}
