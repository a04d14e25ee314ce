import FastStoreTestSupport
import Testing

@testable import FastStore

/// `==` on versioned lists against `==` on their arrays: versions of one
/// list (which share nodes, and mostly have the same shape), rebuilt lists
/// and unrelated ones, after random element writes (often of an equal
/// value), inserts, removes and rebuilds. With plain elements (compared
/// directly) and elements that hold references (where two leaves' elements
/// of the same slot are equal without being compared).
@Suite("VersionedList equality")
struct VersionedListEqualityTests {
    @Test(arguments: [0, 40, 700, 5_000])
    func equalityMatchesArrays(initialCount: Int) {
        check(initialCount: initialCount, seed: 0xE0_A1) { $0 }
    }

    @Test(arguments: [40, 700, 2_000])
    func equalityMatchesArraysWithReferenceElements(initialCount: Int) {
        // NB: strings long enough to be heap-allocated: not a trivial type.
        check(initialCount: initialCount, seed: 0xE0_A2) { "a value held on the heap, number \($0)" }
    }

    /// The documented rule: an element two versions share is equal without
    /// being compared, as `Array` treats shared storage, so a NaN element
    /// left unwritten does not make two versions unequal; once written it
    /// is compared (a NaN beside a written element, in a leaf with
    /// explicit slots).
    @Test func anElementTheVersionsShareIsEqualWithoutBeingCompared() {
        struct Sample: Equatable { var name: String; var x: Double }
        let heap = String(repeating: "x", count: 40)
        var list = VersionedList([Sample(name: heap, x: .nan), Sample(name: heap, x: 1)])
        list[1].x = 1
        let before = list
        list[1].x = 1
        #expect(Array(before) != Array(list), "arrays built apart compare the NaN")
        #expect(before == list, "the NaN element is the same slot in both")
        list[0].x = .nan
        #expect(before != list, "a written NaN element is compared")
    }

    func check<Element: Equatable>(initialCount: Int, seed fallback: UInt64, _ make: (Int) -> Element) {
        var generator = SeededGenerator.fromEnvironment(fallback: fallback &+ UInt64(initialCount))
        let seed = generator.seed
        var list = VersionedList((0 ..< initialCount).map { make($0 % 3) })
        var versions: [VersionedList<Element>] = [list]
        for step in 0 ..< 300 {
            let n = list.count
            switch Int.random(in: 0 ..< 10, using: &generator) {
            case 0 ..< 6 where n > 0:
                // Values in 0 ..< 3: many writes leave the value equal.
                list[Int.random(in: 0 ..< n, using: &generator)] = make(Int.random(in: 0 ..< 3, using: &generator))
            case 6:
                list.insert(make(Int.random(in: 0 ..< 3, using: &generator)), at: Int.random(in: 0 ... n, using: &generator))
            case 7 where n > 0:
                list.remove(at: Int.random(in: 0 ..< n, using: &generator))
            case 8:
                // An equal list built anew: shares no node.
                versions.append(VersionedList(Array(list)))
            default:
                // An older version, written again.
                if let older = versions.randomElement(using: &generator) { list = older }
            }
            versions.append(list)
            if versions.count > 24 { versions.remove(at: Int.random(in: 0 ..< versions.count, using: &generator)) }
            let arrays = versions.map { Array($0) }
            for i in versions.indices {
                for j in versions.indices where (versions[i] == versions[j]) != (arrays[i] == arrays[j]) {
                    Issue.record("seed \(seed) (FASTSTORE_SEED=\(seed)), \(Element.self), \(initialCount) items, step \(step): versions \(i) and \(j) compare \(versions[i] == versions[j]), arrays \(arrays[i] == arrays[j])")
                    return
                }
            }
        }
    }
}
