import FastStoreTestSupport
import Testing

@_spi(Testing) @testable import FastStore

/// `_ConsumerRegistry._sameSet`, which decides whether a consumer's
/// re-evaluation read what it is indexed under (nothing to re-index): its
/// one-pass shortcut, which skips a repeat of the previous read, against a
/// comparison of sets, on random reads with repeats in and out of order.
@Suite struct DependencySetTests {
    static var pool: [_Dependency] {
        let nodes = [NodeID.make(), NodeID.make(), NodeID.make()]
        let kinds: [_ReadKind] = [
            .whole, .member, .element(_ElementKey(1)), .element(_ElementKey(2)),
            .field(_FieldRange(offset: 0, size: 8)), .field(_FieldRange(offset: 8, size: 8)),
        ]
        return nodes.flatMap { node in kinds.map { _Dependency(node: node, kind: $0) } }
    }

    @Test func theShortcutAgreesWithSets() {
        let pool = Self.pool
        var generator = SeededGenerator.fromEnvironment(fallback: 0x5E75)
        let seed = generator.seed
        for round in 0 ..< 20_000 {
            // Few distinct reads, so that repeats (adjacent or not) and
            // equal sets in another order are frequent.
            let distinct = Array(pool.shuffled(using: &generator).prefix(Int.random(in: 1 ... 4, using: &generator)))
            var recorded: [_Dependency] = []
            for _ in 0 ..< Int.random(in: 1 ... 8, using: &generator) {
                recorded.append(distinct.randomElement(using: &generator)!)
            }
            let unique: [_Dependency]
            switch Int.random(in: 0 ..< 3, using: &generator) {
            case 0: unique = _ConsumerRegistry<Int>._deduplicated(recorded)
            case 1: unique = _ConsumerRegistry<Int>._deduplicated(recorded.shuffled(using: &generator))
            default: unique = _ConsumerRegistry<Int>._deduplicated(distinct.shuffled(using: &generator))
            }
            let expected = Set(recorded) == Set(unique)
            let same = _ConsumerRegistry<Int>._sameSet(recorded, unique)
            #expect(same == expected, "seed \(seed) (FASTSTORE_SEED=\(seed)), round \(round): \(recorded) against \(unique)")
            if same != expected { return }
        }
    }
}
