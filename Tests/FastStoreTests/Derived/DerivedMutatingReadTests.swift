@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

/// A computation that reads the state through a mutating method of a local
/// copy (`var rows = state.rows; rows.remove(id: 3)`) records nothing for
/// what that method returned: `IdentifiedList.remove(id:)` / `remove(at:)`,
/// `VersionedList.remove(at:)` / `removeFirst()` / `removeLast()`,
/// `VersionedDictionary.removeValue(forKey:)` / `updateValue(_:forKey:)`
/// return state contents without `_Tracking.recordRead`. The only recorded
/// read is the parent's field, which a write through the child (a
/// pass-through) does not affect, so the memo is kept after the returned
/// element changed, and a consumer selecting the derived value is not
/// called. Nothing in "What the tracking cannot see" excludes it.
@Suite struct DerivedMutatingReadTests {
    struct Row: Identifiable, Equatable, Sendable {
        let id: Int
        var v: Int
    }

    struct App: Sendable {
        var rows: IdentifiedList<Row>
        var list: VersionedList<Int>
        var dict: VersionedDictionary<Int, Int>
    }

    typealias State = Versioned<App>

    enum Action: Sendable { case setRow(Int, Int), setFirst(Int), setKey(Int, Int) }

    static func makeStore() -> Store<State, Action> {
        let app = App(
            rows: IdentifiedList((0 ..< 10).map { Row(id: $0, v: $0) }),
            list: VersionedList(0 ..< 10),
            dict: VersionedDictionary(uniqueKeysWithValues: [(1, 1)]))
        return Store(state: State(app)) { state, action in
            switch action {
            case .setRow(let id, let v): state.rows[id: id]?.v = v
            case .setFirst(let v): state.list[0] = v
            case .setKey(let k, let v): state.dict[k] = v
            }
        }
    }

    @Test func aDerivedValueReadThroughRemoveOnACopyGoesStale() {
        let store = Self.makeStore()
        let removed: @Sendable (State) -> Int? = { state in
            var rows = state.rows
            return rows.remove(id: 3)?.v
        }
        let derived = Derived(removed)
        let consumer = StateConsumer<State>()
        var delivered: Int?? = nil
        let handle = consumer.add({ derived($0) }) { (_: Int??, new: Int?) in delivered = new }
        let subscription = consumer.connect(to: store)
        #expect(derived(store.state) == 3)

        store.dispatch(.setRow(3, 42))
        #expect(derived(store.state) == removed(store.state), "the memo of row 3's old value was kept")
        #expect(delivered == 42, "the consumer was not evaluated")
        withExtendedLifetime((subscription, handle)) {}
    }

    @Test func listAndDictionaryRemovalsOnACopyAreNotRecordedEither() {
        let store = Self.makeStore()
        let first: @Sendable (State) -> Int = { state in
            var list = state.list
            return list.removeFirst()
        }
        let value: @Sendable (State) -> Int? = { state in
            var dict = state.dict
            return dict.removeValue(forKey: 1)
        }
        let derivedFirst = Derived(first), derivedValue = Derived(value)
        #expect(derivedFirst(store.state) == 0 && derivedValue(store.state) == 1)
        store.dispatch(.setFirst(77))
        store.dispatch(.setKey(1, 9))
        #expect(derivedFirst(store.state) == first(store.state))
        #expect(derivedValue(store.state) == value(store.state))
    }
}
