@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

struct HistoryRow: Hashable, Sendable, Identifiable {
    var id: Int
    var done = false
}

struct HistoryTodos: Hashable, Sendable {
    var rows: IdentifiedList<Versioned<HistoryRow>>
    var items: VersionedList<Int>
    var filter = "all"
    var settings = Versioned(HistorySettings())
}

struct HistorySettings: Hashable, Sendable {
    var theme = "light"
}

enum HistoryAction: Hashable, Sendable {
    case toggle(Int)
    case setItem(Int, Int)
    case setFilter(String)
    case setTheme(String)
}

func historyReducer(_ state: inout Versioned<HistoryTodos>, _ action: HistoryAction) {
    switch action {
    case .toggle(let id): state.rows[id: id]!.done.toggle()
    case .setItem(let i, let v): state.items[i] = v
    case .setFilter(let filter): state.filter = filter
    case .setTheme(let theme): state.settings.theme = theme
    }
}

func makeHistoryTodos(_ n: Int = 100) -> Versioned<HistoryTodos> {
    Versioned(HistoryTodos(rows: IdentifiedList((0..<n).map { Versioned(HistoryRow(id: $0)) }),
                           items: VersionedList(Array(repeating: 0, count: n))))
}

@Suite struct StoreHistoryTests {
    @Test func undoRedoAndJumpRepublishRecordedStates() throws {
        let store = Store(state: makeHistoryTodos(), reducer: historyReducer)
        let history = StoreHistory(store)
        #expect(history.indices == 0...0)
        #expect(!history.canUndo && !history.canRedo)
        store.dispatch(.toggle(3))
        store.dispatch(.setFilter("done"))
        store.dispatch(.setTheme("dark"))
        #expect(history.indices == 0...3)
        #expect(history.currentIndex == 3)
        #expect(history[1]?.actions == [.toggle(3)])
        #expect(history[0]?.actions == [])

        try history.undo()
        #expect(store.state.settings.theme == "light")
        #expect(store.state.filter == "done")
        #expect(history.currentIndex == 2 && history.canRedo)
        try history.undo()
        #expect(store.state.filter == "all")
        #expect(store.state.rows[id: 3]!.done)
        try history.redo()
        #expect(store.state.filter == "done")
        try history.jump(to: 0)
        #expect(store.state.value == makeHistoryTodos().value)
        #expect(store.state.nodeID == history[0]!.state.nodeID)
        try history.jump(to: 3)
        #expect(store.state.value == history[3]!.state.value)
        #expect(!history.canRedo)
    }

    @Test func aDispatchAfterAnUndoDropsTheRedoBranch() throws {
        let store = Store(state: makeHistoryTodos(), reducer: historyReducer)
        let history = StoreHistory(store)
        store.dispatch(.toggle(1))
        store.dispatch(.toggle(2))
        try history.undo()
        try history.undo()
        #expect(history.canRedo)
        store.dispatch(.setFilter("x"))
        #expect(!history.canRedo)
        #expect(history.indices == 0...1)
        #expect(history[1]?.actions == [.setFilter("x")])
        #expect(!store.state.rows[id: 1]!.done)
        #expect(throws: StoreHistoryError.nothingToRedo) { try history.redo() }
        try history.undo()
        #expect(store.state.filter == "all")
    }

    @Test func theLimitEvictsTheOldestEntries() throws {
        let store = Store(state: makeHistoryTodos(), reducer: historyReducer)
        let history = StoreHistory(store, limit: .entries(5))
        for i in 0..<20 { store.dispatch(.setItem(i, i + 1)) }
        #expect(history.indices == 16...20)
        #expect(history[15] == nil)
        #expect(history[16]?.actions == [.setItem(15, 16)])
        #expect(throws: StoreHistoryError.evicted(index: 3, oldest: 16)) { try history.jump(to: 3) }
        try history.jump(to: 16)
        #expect(store.state.items[15] == 16 && store.state.items[16] == 0)
        #expect(throws: StoreHistoryError.nothingToUndo) { try history.undo() }
        // Many more than the limit: storage stays bounded and numbering goes on.
        for i in 0..<500 { store.dispatch(.setItem(i % 100, i)) }
        #expect(history.indices == 512...516)
    }

    @Test func misuseThrowsErrorsNamingTheProblem() throws {
        let store = Store(state: makeHistoryTodos(), reducer: historyReducer)
        let history = StoreHistory(store)
        #expect(throws: StoreHistoryError.nothingToUndo) { try history.undo() }
        #expect(throws: StoreHistoryError.nothingToRedo) { try history.redo() }
        #expect(throws: StoreHistoryError.noSuchEntry(index: 7, newest: 0)) { try history.jump(to: 7) }
        #expect(throws: StoreHistoryError.evicted(index: -1, oldest: 0)) { try history.jump(to: -1) }
        #expect("\(StoreHistoryError.evicted(index: 3, oldest: 16))".contains("evicted"))
        store.dispatch(.toggle(0))
        // From inside the drain: refused, not a deadlock.
        var inside: (any Error)?
        let subscription = store.subscribe { _ in
            do { try history.undo() } catch { inside = error }
        }
        store.dispatch(.toggle(1))
        #expect(inside as? StoreHistoryError == .insideDrain)
        subscription.cancel()
        // Nothing was changed by the failed moves.
        #expect(history.currentIndex == 2)
        #expect(store.state.rows[id: 1]!.done)
    }

    @Test func subscribersAreNotifiedOncePerMove() throws {
        let store = Store(state: makeHistoryTodos(), reducer: historyReducer)
        let history = StoreHistory(store)
        for i in 0..<10 { store.dispatch(.toggle(i)) }
        var notified: [Int] = []
        let subscription = store.subscribe { state in notified.append(state.rows.filter(\.done).count) }
        try history.undo()
        #expect(notified == [9])
        try history.jump(to: 2)
        #expect(notified == [9, 2])
        try history.jump(to: 2)  // the current entry: nothing to publish
        #expect(notified == [9, 2])
        _ = try? history.jump(to: 99)
        #expect(notified == [9, 2])
        subscription.cancel()
    }

    @Test func consumersGetOnlyTheSelectionsThatDifferAcrossManySteps() throws {
        let store = Store(state: makeHistoryTodos(1000), reducer: historyReducer)
        let history = StoreHistory(store)
        let consumer = StateConsumer<Versioned<HistoryTodos>>()
        var log: [String] = []
        for i in 0..<100 {
            consumer.add({ $0.rows[id: i * 10]!.done }) { (new: Bool) in log.append("row \(i * 10) \(new)") }
            consumer.add({ $0.items[i] }) { (new: Int) in log.append("item \(i) \(new)") }
        }
        consumer.add({ $0.filter }) { (new: String) in log.append("filter \(new)") }
        consumer.add({ $0.settings.theme }) { (new: String) in log.append("theme \(new)") }
        let subscription = consumer.connect(to: store)
        log.removeAll()
        for i in 0..<300 { store.dispatch(.toggle(i)) }
        store.dispatch(.setItem(5, 7))
        store.dispatch(.setTheme("dark"))
        log.removeAll()
        let before = consumer._statistics
        // 302 entries back: every toggle undone at once.
        try history.jump(to: 0)
        #expect(Set(log) == Set((0..<30).map { "row \($0 * 10) false" } + ["item 5 0", "theme light"]))
        #expect(log.count == 32)
        let after = consumer._statistics
        #expect(after.journaledConsumes == before.journaledConsumes + 1)
        #expect(after.fullConsumes == before.fullConsumes)
        // Only the affected selectors ran (rows 0...299 read by 30 of them,
        // item 5, the theme), not all 202.
        #expect(after.evaluations - before.evaluations == 32)
        log.removeAll()
        try history.redo()
        #expect(log == ["row 0 true"])
        subscription.cancel()
    }

    @Test func plainStateIsRecordedAndConsumersCompare() throws {
        struct Plain: Hashable, Sendable { var a = 0, b = 0 }
        let store = Store<Plain, Int>(state: Plain()) { state, action in
            if action > 0 { state.a += action } else { state.b += 1 }
        }
        let history = StoreHistory(store)
        let consumer = StateConsumer<Plain>()
        var log: [String] = []
        consumer.add({ $0.a }) { (new: Int) in log.append("a \(new)") }
        consumer.add({ $0.b }) { (new: Int) in log.append("b \(new)") }
        let subscription = consumer.connect(to: store)
        store.dispatch(3)
        store.dispatch(-1)
        log.removeAll()
        try history.undo()
        #expect(log == ["b 0"])
        try history.undo()
        #expect(log == ["b 0", "a 0"])
        #expect(store.state == Plain())
        subscription.cancel()
    }
}
