@testable import FastStore
import FastStoreTestSupport
import Foundation
import Testing

/// Seeded property checks of `StatePatch` on random Codable versioned trees
/// and random mutation sequences. A failure prints its seed; rerun it with
/// `FASTSTORE_SEED=<seed>`.
@Suite("StatePatch properties")
struct StatePatchPropertyTests {
    static let seeds: [UInt64] = Array(1...60)

    /// A random state and a random later version of it.
    static func versions(seed: UInt64, steps: ClosedRange<Int> = 1...8) -> (CodableState, CodableState, SeededGenerator) {
        var rng = SeededGenerator.fromEnvironment(fallback: seed)
        let a = CodableTreeGen.state(&rng)
        var b = a
        for _ in 0 ..< Int.random(in: steps, using: &rng) { CodableTreeGen.mutate(&b, &rng) }
        return (a, b, rng)
    }

    @Test("apply(diff(a, b), to: a) == b", arguments: seeds)
    func applyGivesNewer(seed: UInt64) throws {
        let (a, b, _) = Self.versions(seed: seed)
        let patch = try StatePatch(from: a, to: b)
        let applied = try patch.apply(to: a)
        #expect(applied == b, "seed \(seed): \(patch)")
        // The result shares structure with `a`: diffing it again gives an
        // equivalent patch.
        #expect(try StatePatch(from: a, to: applied).apply(to: a) == b, "seed \(seed)")
        #expect(try StatePatch(from: b, to: b).isEmpty)
    }

    @Test("inverted() turns the newer version back into the older", arguments: seeds)
    func inversion(seed: UInt64) throws {
        let (a, b, _) = Self.versions(seed: seed)
        let patch = try StatePatch(from: a, to: b)
        #expect(try patch.inverted().apply(to: b) == a, "seed \(seed): \(patch)")
        #expect(patch.inverted().inverted() == patch)
    }

    @Test("a→b then b→c equals a→c", arguments: seeds)
    func composition(seed: UInt64) throws {
        var (a, b, rng) = Self.versions(seed: seed)
        var c = b
        for _ in 0 ..< Int.random(in: 1...6, using: &rng) { CodableTreeGen.mutate(&c, &rng) }
        let first = try StatePatch(from: a, to: b), second = try StatePatch(from: b, to: c)
        #expect(try first.then(second).apply(to: a) == c, "seed \(seed)")
        #expect(try StatePatch.compose([first, second]).apply(to: a) == c, "seed \(seed)")
        #expect(try first.then(second).inverted().apply(to: c) == a, "seed \(seed)")
        a = c  // silence "never mutated"
        _ = a
    }

    @Test("JSON round trip changes nothing", arguments: seeds)
    func codableRoundTrip(seed: UInt64) throws {
        let (a, b, _) = Self.versions(seed: seed)
        let patch = try StatePatch(from: a, to: b)
        let data = try JSONEncoder().encode(patch)
        let decoded = try JSONDecoder().decode(StatePatch<CodableState>.self, from: data)
        #expect(decoded == patch, "seed \(seed): \(String(decoding: data, as: UTF8.self))")
        #expect(try decoded.apply(to: a) == b, "seed \(seed)")
    }

    @Test("a patch log replays: snapshot plus patches gives the latest state")
    func patchLogReplay() throws {
        var rng = SeededGenerator.fromEnvironment(fallback: 99)
        let snapshot = CodableTreeGen.state(&rng)
        var state = snapshot
        var log: [Data] = []
        for _ in 0 ..< 40 {
            let before = state
            CodableTreeGen.mutate(&state, &rng)
            log.append(try JSONEncoder().encode(StatePatch(from: before, to: state)))
        }
        var replayed = snapshot
        for data in log {
            replayed = try JSONDecoder().decode(StatePatch<CodableState>.self, from: data).apply(to: replayed)
        }
        #expect(replayed == state)
    }

    /// What applying gives: the state, or the error's description.
    enum Outcome: Equatable {
        case state(CodableState)
        case error(String)
    }

    static func outcome(_ body: () throws -> CodableState) -> Outcome {
        do { return .state(try body()) } catch { return .error("\(error)") }
    }

    @Test("many patches composed: one walk per run gives what one operation at a time gives", arguments: seeds)
    func manyPatchesComposed(seed: UInt64) throws {
        var (first, _, rng) = Self.versions(seed: seed, steps: 0...0)
        var states = [first]
        var patches: [StatePatch<CodableState>] = []
        for _ in 0 ..< Int.random(in: 2...30, using: &rng) {
            var next = states.last!
            for _ in 0 ..< Int.random(in: 1...3, using: &rng) { CodableTreeGen.mutate(&next, &rng) }
            patches.append(try StatePatch(from: states.last!, to: next))
            states.append(next)
        }
        let composed = StatePatch.compose(patches)
        let last = states.last!
        #expect(try composed.apply(to: first) == last, "seed \(seed): \(composed)")
        #expect(try composed.inverted().apply(to: last) == first, "seed \(seed): \(composed)")
        // From the middle, and on other bases: the walk and the reference
        // agree on the state or on the error.
        let middle = states.count / 2
        let tail = StatePatch.compose(patches[middle...])
        #expect(try tail.apply(to: states[middle]) == last, "seed \(seed)")
        for base in [states[1], last, states[middle]] {
            for patch in [composed, tail, composed.inverted()] {
                #expect(Self.outcome { try patch.apply(to: base) } == Self.outcome { try patch._applyOneByOne(to: base) }, "seed \(seed)")
            }
        }
        first = last  // silence "never mutated"
        _ = first
    }
}
