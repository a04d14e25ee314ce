@testable import FastStore
import FastStoreTestSupport
import Testing

/// A history move with `.patches` tells no watcher `.states` would not tell
/// (the reference, on a second store fed the same actions and moves): a
/// scope whose part no entry between the two states wrote is not told, and
/// every scope whose part's value differs is told, with either storage (the
/// naive reference: the values compared).
@Suite struct PatchJumpWatcherTests {
    /// The scopes watched, each by name, with its part's plain value.
    static var parts: [(name: String, value: (CodableState) throws -> PatchValue)] { [
        ("mid", { try _plainValue($0.mid) }),
        ("mid.leaf", { try _plainValue($0.mid.leaf) }),
        ("spare", { try _plainValue($0.spare) }),
        ("leaves", { try _plainValue($0.leaves) }),
        ("scores", { try _plainValue($0.scores) }),
        ("name", { try _plainValue($0.name) }),
        ("row1", { try _plainValue($0.rows[id: 1]) }),
        ("row2", { try _plainValue($0.rows[id: 2]) }),
        ("row5", { try _plainValue($0.rows[id: 5]) }),
    ] }

    final class Rig {
        let store: Store<CodableState, UInt64>
        let history: StoreHistory<CodableState, UInt64>
        var told: Set<String> = []
        var subscriptions: [StoreSubscription] = []

        init(initial: CodableState, storage: StoreHistory<CodableState, UInt64>.Storage) {
            // An action is the seed of one random mutation.
            store = Store(state: initial) { state, action in
                var rng = SeededGenerator(seed: action)
                CodableTreeGen.mutate(&state, &rng)
            }
            history = StoreHistory(store, limit: .entries(40), storage: storage)
            func watch<Part>(_ name: String, _ get: @escaping (CodableState) -> Part) {
                subscriptions.append(store.scope(state: get, action: { $0 }).subscribe { [unowned self] _ in told.insert(name) })
            }
            watch("mid") { $0.mid }
            watch("mid.leaf") { $0.mid.leaf }
            watch("spare") { $0.spare }
            watch("leaves") { $0.leaves }
            watch("scores") { $0.scores }
            watch("name") { $0.name }
            watch("row1") { $0.rows[id: 1] }
            watch("row2") { $0.rows[id: 2] }
            watch("row5") { $0.rows[id: 5] }
        }
    }

    @Test(arguments: 0 ..< 16)
    func aMoveTellsNoWatcherStatesWouldNotTell(seedOffset: UInt64) throws {
        var rng = SeededGenerator.fromEnvironment(fallback: 0x1A_0000 &+ seedOffset)
        let seed = rng.seed
        var build = rng
        let initial = CodableTreeGen.state(&build)
        _ = rng.next()
        let reference = Rig(initial: initial, storage: .states)
        let patched = Rig(initial: initial, storage: .patches)
        for step in 0 ..< 120 {
            if Int.random(in: 0 ..< 3, using: &rng) == 0 {
                let action = rng.next()
                reference.store.dispatch(action)
                patched.store.dispatch(action)
                continue
            }
            let kept = reference.history.indices
            let target = Int.random(in: kept, using: &rng)
            let before = reference.store.state
            reference.told = []
            patched.told = []
            try reference.history.jump(to: target)
            try patched.history.jump(to: target)
            let after = reference.store.state
            #expect(try _plainValue(patched.store.state) == _plainValue(after), "seed \(seed), step \(step)")
            // Never a watcher `.states` would not tell (`.patches` may tell
            // fewer: a part written and written back between the two
            // entries, with the writes folded, is not rebuilt).
            #expect(patched.told.isSubset(of: reference.told), "seed \(seed), step \(step): jump to \(target): \(patched.told) against \(reference.told)")
            for part in Self.parts where try part.value(before) != part.value(after) {
                #expect(reference.told.contains(part.name), "seed \(seed), step \(step): \(part.name) changed, not told by .states")
            }
            for part in Self.parts where try part.value(before) != part.value(after) {
                #expect(patched.told.contains(part.name), "seed \(seed), step \(step): \(part.name) changed, not told")
            }
        }
        reference.subscriptions.forEach { $0.cancel() }
        patched.subscriptions.forEach { $0.cancel() }
    }
}
