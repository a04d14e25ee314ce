import FastStoreTestSupport
import Testing

@_spi(Testing) @testable import FastStore

/// `_ConsumerRegistry._sameSet`, which decides whether a consumer's
/// re-evaluation read what it is indexed under (nothing to re-index): its
/// one-pass shortcut, which skips a repeat of the previous read, against a
/// comparison of sets, on random reads with repeats in and out of order;
/// and `_DependencyList`, which holds a consumer's dependencies (two
/// inline, more in an array), against deduplicating an array.
@Suite struct DependencySetTests {
    static var pool: [_Dependency] {
        let nodes = [NodeID.make(), NodeID.make(), NodeID.make()]
        let kinds: [_ReadKind] = [
            .whole, .member, .structure, .element(_ElementKey(1)), .element(_ElementKey(2)),
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
            // NB: past 16 reads the list deduplicates through a set.
            let reads = Int.random(in: 0 ..< 10, using: &generator) == 0 ? Int.random(in: 17 ... 40, using: &generator) : Int.random(in: 1 ... 8, using: &generator)
            for _ in 0 ..< reads {
                recorded.append(distinct.randomElement(using: &generator)!)
            }
            let unique: _DependencyList
            switch Int.random(in: 0 ..< 3, using: &generator) {
            case 0: unique = _DependencyList(deduplicating: recorded)
            case 1: unique = _DependencyList(deduplicating: recorded.shuffled(using: &generator))
            default: unique = _DependencyList(deduplicating: distinct.shuffled(using: &generator))
            }
            if round % 2 == 0 {
                // The list: the reads without repeats, in first-read order.
                var firstReads: [_Dependency] = []
                for dependency in recorded where !firstReads.contains(dependency) { firstReads.append(dependency) }
                let list = _DependencyList(deduplicating: recorded)
                #expect(Array(list) == firstReads, "seed \(seed) (FASTSTORE_SEED=\(seed)), round \(round): \(recorded)")
                var appended = _DependencyList()
                for dependency in firstReads { appended.append(dependency) }
                #expect(Array(appended) == firstReads, "seed \(seed) (FASTSTORE_SEED=\(seed)), round \(round): appending \(firstReads)")
                appended.removeAll()
                #expect(appended.isEmpty)
            }
            let expected = Set(recorded) == Set(unique)
            let same = _ConsumerRegistry<Int>._sameSet(recorded, unique)
            #expect(same == expected, "seed \(seed) (FASTSTORE_SEED=\(seed)), round \(round): \(recorded) against \(unique)")
            if same != expected { return }
        }
    }

    /// A dependency packs its read kind into one word (`_Dependency`): the
    /// kind read back is the kind given, and two dependencies are equal
    /// exactly when their nodes and kinds are, on random kinds at the edges
    /// of what packs (element keys of any 62-bit value, field ranges up to
    /// 2^31 - 1).
    @Test func aDependencyKeepsItsKind() {
        var generator = SeededGenerator.fromEnvironment(fallback: 0xD3_9E)
        let seed = generator.seed
        let nodes = [NodeID.make(), NodeID.make()]
        let limit = Int(UInt32.max / 2)
        func randomKind() -> _ReadKind {
            switch Int.random(in: 0 ..< 5, using: &generator) {
            case 0: return .whole
            case 1: return .member
            case 4: return .structure
            case 2:
                let key: Int = switch Int.random(in: 0 ..< 4, using: &generator) {
                case 0: Int.random(in: -3 ... 3, using: &generator)
                case 1: Int.random(in: Int.min ... Int.max, using: &generator)
                case 2: [Int.min, Int.max, 1 << 61, -(1 << 61), (1 << 61) - 1, -(1 << 61) - 1].randomElement(using: &generator)!
                default: "\(Int.random(in: 0 ..< 1000, using: &generator))".hashValue
                }
                return .element(_ElementKey(key))
            default:
                let edge = { [0, 1, limit - 1, limit].randomElement(using: &generator)! }
                let offset = Bool.random(using: &generator) ? edge() : Int.random(in: 0 ... limit, using: &generator)
                let size = Bool.random(using: &generator) ? edge() : Int.random(in: 0 ... limit, using: &generator)
                return .field(_FieldRange(fitting: offset, size: size)!)
            }
        }
        for round in 0 ..< 20_000 {
            let a = (node: nodes.randomElement(using: &generator)!, kind: randomKind())
            let b = Bool.random(using: &generator) ? a : (node: nodes.randomElement(using: &generator)!, kind: randomKind())
            let packedA = _Dependency(node: a.node, kind: a.kind)
            let packedB = _Dependency(node: b.node, kind: b.kind)
            let context = "seed \(seed) (FASTSTORE_SEED=\(seed)), round \(round): \(a) and \(b)"
            #expect(packedA.kind == a.kind, "\(context)")
            #expect((packedA == packedB) == (a.node == b.node && a.kind == b.kind), "\(context)")
            if packedA == packedB { #expect(packedA.hashValue == packedB.hashValue, "\(context)") }
            if packedA.kind != a.kind { return }
        }
    }

    /// Element keys are kept to 62 bits, sign-extended: keys within ±2^61
    /// are themselves, and a read and a write of one key always agree.
    @Test func elementKeysBeyondSixtyTwoBitsFoldTheSameWayForReadsAndWrites() {
        #expect(_ElementKey(5).bits == 5)
        #expect(_ElementKey(-5).bits == -5)
        #expect(_ElementKey((1 << 61) - 1).bits == (1 << 61) - 1)
        #expect(_ElementKey(-(1 << 61)).bits == -(1 << 61))
        #expect(_ElementKey(Int.max) == _ElementKey(Int.max))
        #expect(_ElementKey(1 << 62) == _ElementKey(0))
        let read = _Dependency(node: NodeID.make(), kind: .element(_ElementKey(Int.min + 7)))
        #expect(_WriteKind.element(_ElementKey(Int.min + 7)).affects(read.kind))
    }
}
