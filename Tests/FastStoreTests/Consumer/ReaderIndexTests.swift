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
}

extension _Dependency {
    /// One registration of the reference model.
    struct Registration: Hashable {
        let dependency: _Dependency
        let reader: Int
    }
}
