import FastStore
import Foundation
import Testing

// The "Async sequences" and "Changes with their cause" examples (once the
// README's; now the DocC article Sources/FastStore/FastStore.docc/Sequences.md),
// compiled and run.

private struct ReadmeRow: Identifiable, Equatable, Sendable { let id: Int; var title: String; var done = false }
private struct ReadmeState: Sendable { var rows: IdentifiedList<ReadmeRow> }
private typealias AppState = Versioned<ReadmeState>
private enum AppAction: Equatable, Sendable { case toggle(Int), append(Int), undo }

private func reducer(_ state: inout AppState, _ action: AppAction) {
    switch action {
    case .toggle(let id): state.rows[id: id]?.done.toggle()
    case .append(let id): state.rows.append(ReadmeRow(id: id, title: "row \(id)"))
    case .undo: state.rows[id: 0]?.done = false
    }
}

private func makeStore() -> Store<AppState, AppAction> {
    Store(state: AppState(ReadmeState(rows: IdentifiedList((0..<10).map { ReadmeRow(id: $0, title: "row \($0)") }))),
          reducer: reducer)
}

@Suite struct ReadmeSequencesExamplesTests {
    @Test func asyncSequencesExample() async {
        let store = makeStore()
        let id = 3
        var rendered: [Int] = []
        var rows: [ReadmeRow?] = []
        var badges: [(Int, Int)] = []
        var states = store.states.makeAsyncIterator()
        var values = store.values({ $0.rows[id: id] }).makeAsyncIterator()
        var changes = store.changes(of: { $0.rows.count }).makeAsyncIterator()
        for round in 0..<2 {
            if let state = await states.next() { rendered.append(state.rows.count) }
            if let row = await values.next() { rows.append(row) }
            if let change = await changes.next() { badges.append((change.previous ?? 0, change.value)) }
            store.dispatch(.toggle(5))
            store.dispatch(.append(10 + round))
            store.dispatch(.toggle(id))
        }
        #expect(rendered == [10, 11])
        #expect(rows.map { $0?.done } == [false, true])
        #expect(badges.map(\.0) == [0, 10] && badges.map(\.1) == [10, 11])
    }

    @Test func changesWithTheirCauseExample() async {
        let store = makeStore()
        var printed: [String] = []
        let changeLog = store.subscribeChanges { change in
            printed.append("\(change.actions) → \(change.state.rows.count)")
        }
        let consumer = StateConsumer<AppState>()
        var reloads: [Bool] = []
        consumer.add({ $0.rows }) { (old: IdentifiedList<ReadmeRow>?, new: IdentifiedList<ReadmeRow>, actions: [AppAction]) in
            reloads.append(!actions.contains(.undo))
        }
        let subscription = consumer.connectChanges(to: store)
        var history: [StoreChange<AppState, AppAction>] = []
        var changes = store.stateChanges.makeAsyncIterator()
        if let change = await changes.next() { history.append(change) }
        store.dispatch(.append(10))
        store.dispatch(.toggle(0))
        store.dispatch(.undo)
        if let change = await changes.next() { history.append(change) }
        #expect(printed.count == 3 && printed.allSatisfy { $0.hasSuffix("] → 11") }, "one line per batch")
        #expect(reloads == [true, true, true, false], "the first consume, then each batch; no animation for undo")
        #expect(history.map(\.actions) == [[], [.append(10), .toggle(0), .undo]])
        changeLog.cancel()
        subscription.cancel()
    }
}
