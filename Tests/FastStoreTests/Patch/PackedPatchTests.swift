@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

/// The packed form a `StoreHistory` with `.patches` storage keeps per entry
/// unpacks to the same operations: on seeded random diffs of the Codable
/// trees, and on hand-made edge values.
@Suite struct PackedPatchTests {
    @Test func randomDiffsUnpackToTheSameOperations() throws {
        var rng = SeededGenerator.fromEnvironment(fallback: 0x9ACC_ED00)
        var state = CodableTreeGen.state(&rng)
        var checked = 0
        for step in 0 ..< 300 {
            let before = state
            CodableTreeGen.mutate(&state, &rng)
            let patch = try StatePatch(from: before, to: state)
            let (unpacked, _) = patch._packedRoundTrip
            #expect(unpacked == patch, "seed \(rng.seed), step \(step)")
            if !patch.isEmpty { checked += 1 }
        }
        #expect(checked > 200)
    }

    @Test func edgeValuesUnpackToTheSameOperations() {
        let values: [PatchValue?] = [
            nil, .null, .bool(false), .bool(true), .int(0), .int(-1), .int(63), .int(-64), .int(64),
            .int(Int64.max), .int(Int64.min), .double(-0.0), .double(.infinity), .double(-1.5e300),
            .double(.leastNonzeroMagnitude), .string(""), .string("é ✓ 👩‍👩‍👧"), .string(String(repeating: "x", count: 300)),
            .array([]), .array([.null, .array([.int(1)]), .object(["a": .string("b")])]),
            .object([:]), .object(["": .null, "k": .object(["nested": .array([.bool(true)])])]),
        ]
        let path = PatchPath([.field("rows"), .id(.int(-7)), .index(3), .key(.string("k")), .field("é")])
        var operations: [PatchOperation] = []
        for old in values {
            for new in values.shuffled().prefix(3) { operations.append(.set(path: path, old: old, new: new)) }
        }
        operations.append(.edit(path: PatchPath(), removed: [], inserted: []))
        operations.append(.edit(
            path: path,
            removed: [PatchListEntry(offset: 0, id: .int(4), value: .object(["id": .int(4)]))],
            inserted: [PatchListEntry(offset: 1_000_000, value: .array([.double(2.5)])),
                       PatchListEntry(offset: 2, id: .string("x"), value: .null)]))
        let patch = StatePatch<CodableState>(operations: operations)
        let (unpacked, byteCount) = patch._packedRoundTrip
        #expect(unpacked == patch)
        #expect(byteCount > 0)
    }

    /// A one-row change packs to a few dozen bytes (what a history entry
    /// keeps for it).
    @Test func aOneRowChangePacksSmall() throws {
        let before = makeCodableTodos(1_000)
        var after = before
        after.rows[id: 424]?.done = true
        let (_, byteCount) = try StatePatch(from: before, to: after)._packedRoundTrip
        #expect(byteCount < 40, "\(byteCount) bytes")
    }
}
