@_spi(Testing) import FastStore
import FastStoreTestSupport
import Foundation
import Observation
import Testing

// The "Derived values" example (once the README's; now the DocC article
// Sources/FastStore/FastStore.docc/DerivedValues.md), run as written (the SwiftUI line
// as the `withObservationTracking` scope SwiftUI puts around a body).

private struct Todo: Identifiable, Equatable, Sendable {
    let id: Int
    var done = false
}
private enum Filter: Sendable { case all, done }

private enum Remaining: CountingSummary {
    static func counts(_ todo: Todo) -> Bool { !todo.done }
}

private struct TodoApp: Sendable {
    var todos = IdentifiedList<Todo>(folds: [Remaining.self])
    var filter = Filter.all
}

private enum Action: Sendable { case add(Int), toggle(Int), filter(Filter) }

@Suite struct ReadmeDerivedExampleTests {
    @Test func remainingCountExample() {
        let store = Store(state: Versioned(TodoApp())) { (state: inout Versioned<TodoApp>, action: Action) in
            switch action {
            case .add(let id): state.todos.append(Todo(id: id))
            case .toggle(let id): state.todos[id: id]?.done.toggle()
            case .filter(let filter): state.filter = filter
            }
        }
        for id in 0 ..< 1_000 { store.dispatch(.add(id)) }

        let remaining = Derived { (state: Versioned<TodoApp>) in state.todos.fold(Remaining.self) }
        let title = Derived { (state: Versioned<TodoApp>) in "\(remaining(state)) left" }

        let consumer = StateConsumer<Versioned<TodoApp>>()
        var navigationTitle = ""
        consumer.add({ title($0) }) { (old: String?, new: String) in navigationTitle = new }
        let subscription = consumer.connect(to: store)
        #expect(navigationTitle == "1000 left")
        #expect(store.state.todos.isAttached(Remaining.self), "the fold came with every append")

        let invalidated = ReadmeLocked(0)
        withObservationTracking {
            _ = title(store.state)
        } onChange: {
            invalidated.withValue { $0 += 1 }
        }

        let evaluations = consumer._statistics.evaluations
        store.dispatch(.filter(.done))
        #expect(counts(consumer._statistics.evaluations, evaluations, unlinked: consumer._statistics.unlinkedConsumes), "not even evaluated when only the filter changes")
        #expect(invalidated.withValue { $0 } == 0)
        #expect(counts(title._computeCount, 1, unlinked: title._unlinkedChecks) && counts(remaining._computeCount, 1, unlinked: remaining._unlinkedChecks))

        store.dispatch(.toggle(7))
        #expect(navigationTitle == "999 left")
        #expect(invalidated.withValue { $0 } == 1)
        #expect(counts(title._computeCount, 2, unlinked: title._unlinkedChecks) && counts(remaining._computeCount, 2, unlinked: remaining._unlinkedChecks))
        withExtendedLifetime(subscription) {}
    }
}

private final class ReadmeLocked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withValue<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&value) } }
}
