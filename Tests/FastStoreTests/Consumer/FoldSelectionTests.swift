@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

/// A consumer selecting a fold of an `IdentifiedList` (a read of the whole
/// list) is delivered through the stamps like any selection: called exactly
/// when the fold, recomputed from scratch, changes.
@Suite struct FoldSelectionTests {
    typealias Tests = IdentifiedListDifferentialTests
    typealias State = Tests.State

    enum SumN: SumSummary {
        static func term(_ row: Tests.Row) -> Int { row.n }
    }

    enum Odd: CountingSummary {
        static func counts(_ row: Tests.Row) -> Bool { row.n % 2 == 1 }
    }

    /// The edits of `IdentifiedListDifferentialTests`, the folds attached
    /// again after a wholesale replacement (a new list has none).
    static func reduce(_ state: inout State, _ edit: Tests.Edit) {
        Tests.reduce(&state, edit)
        if !state.rows.isAttached(SumN.self) {
            state.rows.attach(SumN.self)
            state.rows.attach(Odd.self)
        }
    }

    @Test func foldSelectionsAreDeliveredWhenTheFoldChanges() {
        var rng = SeededGenerator.fromEnvironment(fallback: 0xF0_1D5E1)
        let seed = rng.seed
        for round in 0 ..< 20 {
            let initial = (0 ..< 8).map { Tests.Row(id: $0, title: "t", n: $0 % 4) }
            let rows = IdentifiedList(initial, folds: [SumN.self, Odd.self])
            let store = Store(state: State(Tests.Board(rows: rows, tag: 0)), reducer: Self.reduce)
            let consumer = StateConsumer<State>()
            var calls: [String] = []
            let sum = consumer.add({ $0.rows.fold(SumN.self) }) { (_: Int?, new: Int) in calls.append("sum \(new)") }
            let odd = consumer.add({ $0.rows.fold(Odd.self) }) { (_: Int?, new: Int) in calls.append("odd \(new)") }
            let subscription = consumer.connect(to: store)
            calls.removeAll()
            var lastSum = SumN.fold(Array(store.state.rows))
            var lastOdd = Odd.fold(Array(store.state.rows))
            for step in 0 ..< 60 {
                let edit = Tests.randomEdit(&rng, ids: 10)
                store.dispatch(edit)
                let all = Array(store.state.rows)
                let newSum = SumN.fold(all), newOdd = Odd.fold(all)
                var expected: [String] = []
                if newSum != lastSum { expected.append("sum \(newSum)") }
                if newOdd != lastOdd { expected.append("odd \(newOdd)") }
                (lastSum, lastOdd) = (newSum, newOdd)
                guard calls.sorted() == expected.sorted() else {
                    Issue.record("seed \(seed), round \(round), step \(step) (\(edit)): \(calls) != \(expected)")
                    return
                }
                calls.removeAll()
            }
            withExtendedLifetime((subscription, sum, odd)) {}
        }
    }
}
