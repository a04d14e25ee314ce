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
            #expect(exactlyEqual(unpacked.operations, patch.operations), "seed \(rng.seed), step \(step)")
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
        #expect(exactlyEqual(unpacked.operations, patch.operations))
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

/// The operations equal case by case: no `.int` for a `.double`, the same
/// double bits, the same string scalars (stricter than `PatchValue.==`,
/// which takes `.int(1)` for `.double(1)`).
func exactlyEqual(_ a: [PatchOperation], _ b: [PatchOperation]) -> Bool {
    func value(_ x: PatchValue?, _ y: PatchValue?) -> Bool {
        switch (x, y) {
        case (nil, nil): return true
        case (.null?, .null?): return true
        case (.bool(let p)?, .bool(let q)?): return p == q
        case (.int(let p)?, .int(let q)?): return p == q
        case (.double(let p)?, .double(let q)?): return p.bitPattern == q.bitPattern
        case (.string(let p)?, .string(let q)?): return p.unicodeScalars.elementsEqual(q.unicodeScalars)
        case (.array(let p)?, .array(let q)?): return p.count == q.count && zip(p, q).allSatisfy { value($0, $1) }
        case (.object(let p)?, .object(let q)?): return p.count == q.count && p.allSatisfy { value($0.value, q[$0.key]) }
        default: return false
        }
    }
    func path(_ p: PatchPath, _ q: PatchPath) -> Bool {
        p.components.count == q.components.count && zip(p.components, q.components).allSatisfy { c, d in
            switch (c, d) {
            case (.field(let x), .field(let y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
            case (.index(let x), .index(let y)): return x == y
            case (.id(let x), .id(let y)), (.key(let x), .key(let y)): return value(x, y)
            default: return false
            }
        }
    }
    func entries(_ p: [PatchListEntry], _ q: [PatchListEntry]) -> Bool {
        p.count == q.count && zip(p, q).allSatisfy { $0.offset == $1.offset && value($0.id, $1.id) && value($0.value, $1.value) }
    }
    return a.count == b.count && zip(a, b).allSatisfy { x, y in
        switch (x, y) {
        case (.set(let p, let o, let n), .set(let q, let o2, let n2)): return path(p, q) && value(o, o2) && value(n, n2)
        case (.edit(let p, let r, let i), .edit(let q, let r2, let i2)): return path(p, q) && entries(r, r2) && entries(i, i2)
        default: return false
        }
    }
}
