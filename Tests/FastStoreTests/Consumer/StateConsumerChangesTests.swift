@_spi(Testing) import FastStore
import Testing

private struct ScreenRow: Identifiable { let id: Int; var title: String }   // deliberately not Equatable
private struct Screen {
    var rows: VersionedList<ScreenRow>
    var table: IdentifiedList<ScreenRow>
    var scores: VersionedDictionary<String, Int>
    var filter: Int
}
private typealias ScreenState = Versioned<Screen>
private enum ScreenAction {
    case retitle(Int), append(Int), removeFirst, retitleID(Int), insertID(Int), removeID(Int), score(String, Int), filter(Int)
}
private func screenReducer(_ state: inout ScreenState, _ action: ScreenAction) {
    switch action {
    case .retitle(let i): state.rows[i].title += "!"
    case .append(let id): state.rows.append(ScreenRow(id: id, title: "new"))
    case .removeFirst: state.rows.remove(at: 0)
    case .retitleID(let id): state.table[id: id]?.title += "!"
    case .insertID(let id): state.table.append(ScreenRow(id: id, title: "new"))
    case .removeID(let id): state.table.remove(id: id)
    case .score(let key, let value): state.scores[key] = value
    case .filter(let f): state.filter = f
    }
}

/// Collection consumers get the structural diff in their callback, and are
/// not evaluated for writes elsewhere.
@Suite struct StateConsumerChangesTests {
    private func makeStore() -> Store<ScreenState, ScreenAction> {
        let rows = (0..<1_000).map { ScreenRow(id: $0, title: "r\($0)") }
        return Store(state: ScreenState(Screen(rows: VersionedList(rows), table: IdentifiedList(rows),
                                               scores: ["a": 1, "b": 2], filter: 0)),
                     reducer: screenReducer)
    }

    @Test func listConsumerGetsTheDiff() {
        let store = makeStore()
        let consumer = StateConsumer<ScreenState>()
        var calls: [(old: Int?, new: Int, changes: VersionedListChanges)] = []
        let handle = consumer.add({ $0.rows }) { (old: VersionedList<ScreenRow>?, new: VersionedList<ScreenRow>, changes: VersionedListChanges) in
            calls.append((old?.count, new.count, changes))
        }
        let subscription = consumer.connect(to: store)
        #expect(calls.count == 1)
        #expect(calls[0].old == nil && calls[0].changes.inserted == Array(0..<1_000), "the first call inserts everything")

        store.dispatch(.retitle(500))
        #expect(calls.last?.changes.updated == [500])
        #expect(calls.last?.changes.removed == [] && calls.last?.changes.inserted == [])
        store.dispatch(.append(1_000))
        #expect(calls.last?.changes.inserted == [1_000])
        store.dispatch(.removeFirst)
        #expect(calls.last?.changes.removed == [0])
        #expect(calls.last?.old == 1_001 && calls.last?.new == 1_000)

        let before = calls.count
        let evaluations = handle._evaluationCount
        store.dispatch(.filter(1))
        #expect(calls.count == before, "a write elsewhere calls nothing")
        #expect(handle._evaluationCount == evaluations, "and does not even run the list selector")
        subscription.cancel()
    }

    @Test func identifiedListConsumerGetsIDs() {
        let store = makeStore()
        let consumer = StateConsumer<ScreenState>()
        var last: IdentifiedListChanges<Int>?
        consumer.add({ $0.table }) { (_: IdentifiedList<ScreenRow>?, _: IdentifiedList<ScreenRow>, changes: IdentifiedListChanges<Int>) in
            last = changes
        }
        let subscription = consumer.connect(to: store)
        store.dispatch(.retitleID(42))
        #expect(last?.updated == [42])
        store.dispatch(.insertID(5_000))
        #expect(last?.inserted == [5_000])
        store.dispatch(.removeID(7))
        #expect(last?.removed == [7])
        subscription.cancel()
    }

    @Test func dictionaryConsumerGetsKeys() {
        let store = makeStore()
        let consumer = StateConsumer<ScreenState>()
        var last: VersionedDictionaryChanges<String>?
        var calls = 0
        consumer.add({ $0.scores }) { (_: VersionedDictionary<String, Int>?, _: VersionedDictionary<String, Int>, changes: VersionedDictionaryChanges<String>) in
            last = changes
            calls += 1
        }
        let subscription = consumer.connect(to: store)
        store.dispatch(.score("a", 10))
        #expect(last?.updated == ["a"])
        store.dispatch(.score("c", 3))
        #expect(last?.inserted == ["c"])
        store.dispatch(.retitle(1))
        #expect(calls == 3, "first call, then one per dictionary write, none for the list write")
        subscription.cancel()
    }
}
