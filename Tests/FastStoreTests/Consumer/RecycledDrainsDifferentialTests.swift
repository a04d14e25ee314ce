@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

/// Consumers fed by a store whose drains reuse the change log's dropped
/// drains (`_ChangeLog.publish`, `_DrainChanges.make`): single writes and
/// bulk writes past the 256 writes whose buffers are not passed on, for
/// more drains than the log keeps, checked at every dispatch against the
/// callbacks a comparison of plain arrays calls for.
@Suite struct RecycledDrainsDifferentialTests {
    struct Fields { var rows: VersionedList<Int> }
    typealias RowsState = Versioned<Fields>

    enum Edit: Sendable, CustomStringConvertible {
        case set(Int, Int)
        case bulk(Int, Int, Int)  // start, count, value
        var description: String {
            switch self {
            case .set(let i, let v): "rows[\(i)] = \(v)"
            case .bulk(let s, let n, let v): "rows[\(s) ..< \(s + n)] = \(v)"
            }
        }
    }

    static func reduce(_ state: inout RowsState, _ edit: Edit) {
        switch edit {
        case .set(let i, let v): state.rows[i] = v
        case .bulk(let start, let n, let v): for i in start ..< start + n { state.rows[i] = v }
        }
    }

    @Test func consumersSeeEveryChangeThroughRecycledDrains() {
        var rng = SeededGenerator.fromEnvironment(fallback: 0x2EC_7C1E)
        let seed = rng.seed
        let size = 2_000
        var plain = Array(repeating: 0, count: size)
        let store = Store(state: RowsState(Fields(rows: VersionedList(plain))), reducer: Self.reduce)
        let consumer = StateConsumer<RowsState>()
        let watched = (0 ..< 60).map { _ in Int.random(in: 0 ..< size, using: &rng) }
        var fired: [Int: Int] = [:]  // consumer → new value
        for (c, k) in watched.enumerated() {
            consumer.add({ $0.rows[k] }) { (_: Int?, new: Int) in fired[c] = new }
        }
        let subscription = consumer.connect(to: store)
        fired = [:]
        for step in 1 ... 400 {
            let edit: Edit
            if Int.random(in: 0 ..< 10, using: &rng) == 0 {
                let n = Int.random(in: 257 ... 900, using: &rng)
                edit = .bulk(Int.random(in: 0 ... size - n, using: &rng), n, step)
            } else {
                edit = .set(Int.random(in: 0 ..< size, using: &rng), Int.random(in: 0 ... 3, using: &rng))
            }
            let old = plain
            switch edit {
            case .set(let i, let v): plain[i] = v
            case .bulk(let start, let n, let v): for i in start ..< start + n { plain[i] = v }
            }
            var expected: [Int: Int] = [:]
            for (c, k) in watched.enumerated() where old[k] != plain[k] { expected[c] = plain[k] }
            store.dispatch(edit)
            guard fired == expected else {
                Issue.record("seed \(seed) (FASTSTORE_SEED=\(seed)): step \(step), \(edit): callbacks \(fired), expected \(expected)")
                break
            }
            fired = [:]
        }
        #expect(Array(store.state.rows) == plain, "seed \(seed)")
        subscription.cancel()
    }
}
