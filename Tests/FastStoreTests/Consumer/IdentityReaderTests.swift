import FastStoreTestSupport
import Testing

@testable import FastStore

/// `_TrackingIdentity.reader(for:)`, which reads a `Versioned` root's and a
/// `VersionedList`'s identity at fixed offsets rather than through the
/// generic getter: on random lists of several element types, before and
/// after random writes, the fast reader agrees with `_trackingIdentity`.
@Suite struct IdentityReaderTests {
    struct Row: Equatable { var id: Int; var title: String; var done: Bool }
    final class Ref {}

    static func check<Element>(_ make: (inout SeededGenerator) -> Element, _ generator: inout SeededGenerator, seed: UInt64) {
        let read = _TrackingIdentity.reader(for: VersionedList<Element>.self)
        #expect(read != nil)
        #expect(VersionedList<Element>._identityAtFixedOffsets, "the fixed-offset reader applies to VersionedList<\(Element.self)>")
        guard let read else { return }
        for round in 0 ..< 50 {
            var list = VersionedList((0 ..< Int.random(in: 0 ... 300, using: &generator)).map { _ in make(&generator) })
            let kept = list
            for _ in 0 ..< Int.random(in: 0 ... 5, using: &generator) where !list.isEmpty {
                list[Int.random(in: 0 ..< list.count, using: &generator)] = make(&generator)
            }
            if Bool.random(using: &generator) { list.append(make(&generator)) }
            #expect(read(list) == list._trackingIdentity, "seed \(seed) (FASTSTORE_SEED=\(seed)), \(Element.self), round \(round)")
            #expect(read(kept) == kept._trackingIdentity, "seed \(seed) (FASTSTORE_SEED=\(seed)), \(Element.self), round \(round)")
        }
    }

    @Test func theFixedOffsetListReaderAgreesWithTheGenericOne() {
        var generator = SeededGenerator.fromEnvironment(fallback: 0x1D_E7)
        let seed = generator.seed
        Self.check({ Int.random(in: 0 ..< 100, using: &$0) }, &generator, seed: seed)
        Self.check({ "\(Int.random(in: 0 ..< 100, using: &$0))" }, &generator, seed: seed)
        Self.check({ Row(id: Int.random(in: 0 ..< 100, using: &$0), title: "t", done: Bool.random(using: &$0)) }, &generator, seed: seed)
        Self.check({ _ in Ref() }, &generator, seed: seed)
        Self.check({ UInt8.random(in: 0 ... 255, using: &$0) }, &generator, seed: seed)
    }
}
