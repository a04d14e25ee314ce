@testable import FastStore
import FastStoreTestSupport
import Foundation
import Testing

/// A batch that writes but changes no value (a sorted list sorted again, rows
/// replaced by equal rows, equal elements moved) makes an empty patch, and a
/// patch is empty exactly when the two states' values are equal (the
/// reference: their plain encodings compared).
@Suite struct UnchangedValuePatchTests {
    /// Writes that leave every value as it was, though they replace nodes.
    static func rewriteEqually<G: RandomNumberGenerator>(_ state: inout CodableState, _ rng: inout G) {
        switch Int.random(in: 0 ..< 6, using: &rng) {
        case 0: state.mid.numbers.sort(); state.mid.numbers.sort()
        case 1: state.rows.replaceAll(with: Array(state.rows))
        case 2:
            let n = state.mid.numbers.count
            let lower = Int.random(in: 0 ... n, using: &rng), upper = Int.random(in: lower ... n, using: &rng)
            state.mid.numbers.replaceSubrange(lower ..< upper, with: Array(state.mid.numbers[lower ..< upper]))
        case 3:
            // One of two equal neighbours moved past the other.
            let numbers = Array(state.mid.numbers)
            if let i = numbers.indices.dropLast().first(where: { numbers[$0] == numbers[$0 + 1] }) {
                let x = state.mid.numbers.remove(at: i)
                state.mid.numbers.insert(x, at: i + 1)
            } else {
                state.mid.numbers.append(7)
                state.mid.numbers.removeLast()
            }
        case 4: state.leaves = VersionedList(Array(state.leaves))
        default: state.rows.sort { $0.id < $1.id }; state.rows.sort { $0.id < $1.id }
        }
    }

    @Test func aSortedListSortedAgainMakesAnEmptyPatch() throws {
        var rng = SeededGenerator(seed: 41)
        var a = CodableTreeGen.state(&rng)
        a.mid.numbers.sort()
        a.rows.sort { $0.id < $1.id }
        var b = a
        b.mid.numbers.sort()
        b.rows.sort { $0.id < $1.id }
        b.rows.replaceAll(with: Array(b.rows))
        #expect(try StatePatch(from: a, to: b).isEmpty)
    }

    @Test(arguments: 0 ..< 80)
    func aPatchIsEmptyExactlyWhenTheValuesAreEqual(seedOffset: UInt64) throws {
        var rng = SeededGenerator.fromEnvironment(fallback: 0xE3_0000 &+ seedOffset)
        let seed = rng.seed
        let a = CodableTreeGen.state(&rng)
        var b = a
        for _ in 0 ..< Int.random(in: 1 ... 6, using: &rng) {
            if Int.random(in: 0 ..< 3, using: &rng) == 0 {
                CodableTreeGen.mutate(&b, &rng)
            } else {
                Self.rewriteEqually(&b, &rng)
            }
        }
        let patch = try StatePatch(from: a, to: b)
        #expect(patch.isEmpty == (try _plainValue(a) == _plainValue(b)), "seed \(seed): \(patch)")
        #expect(try patch.apply(to: a) == b, "seed \(seed): \(patch)")
        #expect(try patch.inverted().apply(to: b) == a, "seed \(seed): \(patch)")
    }
}
