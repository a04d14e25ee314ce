import FastStoreTestSupport
import Testing

@testable import FastStore

/// The reader index against a reference model (a set of (node, read,
/// reader) registrations): random registrations and removals of element,
/// whole, member and field readers on a few nodes, many readers sharing a
/// few elements (so element readers move between the one-reader map and
/// the reader sets, both ways, and groups of readers between the set's
/// inline, array and hashed forms), then every write kind's affected
/// readers compared with the model's.
@Suite("Reader index")
struct ReaderIndexTests {
    @Test func collectMatchesAReferenceModel() {
        var generator = SeededGenerator.fromEnvironment(fallback: 0x1D_E4)
        let seed = generator.seed
        var index = _ReaderIndex()
        var model: Set<_Dependency.Registration> = []
        let nodes = (1 ... 3).map { NodeID(rawValue: UInt64($0)) }
        let fields = [_FieldRange(offset: 0, size: 8), _FieldRange(offset: 4, size: 8), _FieldRange(offset: 16, size: 8)]
        func randomRead() -> _ReadKind {
            switch Int.random(in: 0 ..< 10, using: &generator) {
            case 0: return .whole
            case 1: return .member
            case 2: return .field(fields.randomElement(using: &generator)!)
            case 3: return .structure
            default: return .element(_ElementKey(Int.random(in: 0 ..< 4, using: &generator)))
            }
        }
        for step in 0 ..< 6_000 {
            let dependency = _Dependency(node: nodes.randomElement(using: &generator)!, kind: randomRead())
            // NB: up to 40 readers, so that a group of readers grows past
            // the short array into a set and shrinks back.
            let reader = Int.random(in: 0 ..< 40, using: &generator)
            let registration = _Dependency.Registration(dependency: dependency, reader: reader)
            if model.contains(registration) {
                index.remove(dependency, reader: reader)
                model.remove(registration)
            } else {
                index.insert(dependency, reader: reader)
                model.insert(registration)
            }
            #expect(index.registrationCount == model.count)
            #expect(index._elementReadersDisjoint)
            let node = nodes.randomElement(using: &generator)!
            let writes: [_WriteKind] = [
                .content, .passThrough, .order, .element(_ElementKey(Int.random(in: 0 ..< 5, using: &generator))),
                .elementValue(_ElementKey(Int.random(in: 0 ..< 5, using: &generator))),
                .field(fields.randomElement(using: &generator)!),
            ]
            for write in writes {
                var collected: [Int] = []
                index.collect(node, write, into: &collected)
                let expected = Set(model.filter { $0.dependency.node == node && write.affects($0.dependency.kind) }.map(\.reader))
                guard Set(collected) == expected else {
                    Issue.record("seed \(seed) (FASTSTORE_SEED=\(seed)), step \(step): \(write) on \(node) collected \(collected.sorted()), expected \(expected.sorted())")
                    return
                }
            }
            for registration in model.shuffled(using: &generator).prefix(3) {
                #expect(index.contains(registration.dependency, reader: registration.reader))
            }
        }
    }

    /// The wake-up hub's filter against the same kind of model: a write it
    /// rules out affects no registered reader, through the rebuilds that
    /// grow it (many nodes and readers, removals that leave bits behind);
    /// and it does rule writes out (an index of nothing rules out every
    /// write, and a sparse one most writes to nodes nobody reads).
    @Test func filterNeverRulesOutAnAffectedReader() {
        var generator = SeededGenerator.fromEnvironment(fallback: 0xF1_17E2)
        let seed = generator.seed
        var index = _ReaderIndex()
        let filter = _ReadFilter()
        // NB: by node, so that a write's check reads one node's readers.
        var model: [NodeID: Set<_Dependency.Registration>] = [:]
        var registrations: [_Dependency.Registration] = []
        let nodes = (1 ... 300).map { NodeID(rawValue: UInt64($0) &* 7) }
        let fields = [_FieldRange(offset: 0, size: 8), _FieldRange(offset: 4, size: 8), _FieldRange(offset: 16, size: 8)]
        // NB: keys as the tracking makes them, filed through a dependency's
        // packing and probed as a write's: small, negative, near the
        // 62 bits a dependency keeps, past them, and hashed (strings).
        let keys: [_ElementKey] = (0 ..< 40).map { _ElementKey($0) } + (1 ... 5).map { _ElementKey(-$0) }
            + [_ElementKey(1 << 61 - 1), _ElementKey(-(1 << 61)), _ElementKey(Int.max), _ElementKey(Int.min), _ElementKey(1 << 62)]
            + (0 ..< 10).map { _ElementKey("row \($0)") }
        func randomWrite() -> _WriteKind {
            switch Int.random(in: 0 ..< 6, using: &generator) {
            case 0: return .content
            case 1: return .passThrough
            case 2: return .order
            case 3: return .element(keys.randomElement(using: &generator)!)
            case 4: return .elementValue(keys.randomElement(using: &generator)!)
            default: return .field(fields.randomElement(using: &generator)!)
            }
        }
        for node in nodes.prefix(20) {
            for _ in 0 ..< 6 { #expect(!filter.mayAffect(node, randomWrite()), "an empty filter ruled a write in") }
        }
        let startBits = filter._bitCount
        var ruledOut = 0
        for step in 0 ..< 12_000 {
            // NB: a removal a third of the time, of a random registration:
            // the filter keeps the bits of readers gone.
            if Int.random(in: 0 ..< 3, using: &generator) == 0, !registrations.isEmpty {
                let gone = registrations.remove(at: Int.random(in: 0 ..< registrations.count, using: &generator))
                index.remove(gone.dependency, reader: gone.reader)
                model[gone.dependency.node]!.remove(gone)
            } else {
                let read: _ReadKind
                switch Int.random(in: 0 ..< 12, using: &generator) {
                case 0: read = .whole
                case 1: read = .member
                case 2: read = .field(fields.randomElement(using: &generator)!)
                case 3: read = .structure
                default: read = .element(keys.randomElement(using: &generator)!)
                }
                // NB: the first nodes are read far more often than the
                // last, so that many writes affect nobody.
                let node = nodes[min(Int.random(in: 0 ..< 300, using: &generator), Int.random(in: 0 ..< 300, using: &generator))]
                let dependency = _Dependency(node: node, kind: read)
                let registration = _Dependency.Registration(dependency: dependency, reader: Int.random(in: 0 ..< 30, using: &generator))
                if model[node, default: []].insert(registration).inserted {
                    registrations.append(registration)
                    index.insert(dependency, reader: registration.reader)
                    filter.insert(dependency, rebuildingFrom: index)
                }
            }
            for _ in 0 ..< 4 {
                let written = nodes.randomElement(using: &generator)!
                let write = randomWrite()
                let affected = model[written, default: []].contains { write.affects($0.dependency.kind) }
                let mayAffect = filter.mayAffect(written, write)
                guard mayAffect || !affected else {
                    Issue.record("seed \(seed) (FASTSTORE_SEED=\(seed)), step \(step): the filter ruled out \(write) on \(written), which affects a registered reader")
                    return
                }
                if !mayAffect { ruledOut += 1 }
            }
        }
        #expect(filter._bitCount > startBits, "the filter never grew")
        #expect(ruledOut > 12_000, "the filter ruled out \(ruledOut) writes of 48,000")
    }
}

extension _Dependency {
    /// One registration of the reference model.
    struct Registration: Hashable {
        let dependency: _Dependency
        let reader: Int
    }
}
