@_spi(Testing) import FastStore
import Testing

/// What a `StateConsumer` keeps once its consumers were evaluated.
@Suite struct ConsumerMemoryTests {
    struct Row: Equatable { var n: Int }
    struct RowsFields { var rows: VersionedList<Row> }
    typealias RowsState = Versioned<RowsFields>

    @Test func theTableOfUnconditionalConsumersShrinksOnceTheyAreEvaluated() {
        let consumer = StateConsumer<RowsState>()
        var calls = 0
        for k in 0 ..< 1_000 { consumer.add({ $0.rows[k] }) { (_: Row?, _: Row) in } }
        // NB: reads nothing versioned: unconditional for good.
        var outside = 0
        consumer.add({ _ in outside }) { (_: Int) in calls += 1 }
        // Every consumer starts unconditional, so the table was sized for
        // 1,001 of them.
        #expect(consumer._unconditionalCapacity >= 1_001)
        var state = RowsState(RowsFields(rows: VersionedList((0 ..< 1_000).map { Row(n: $0) })))
        consumer.consume(newState: state)
        #expect(consumer._unconditionalCapacity <= 64, "a table sized for consumers that are no longer in it")
        #expect(calls == 1)
        // The one left is still run at every consume.
        outside = 1
        state.rows[3].n = -3
        consumer.consume(newState: state)
        #expect(calls == 2)
    }
}
