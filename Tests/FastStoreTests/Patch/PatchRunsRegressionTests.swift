@testable import FastStore
import Testing

/// Regressions from a review of patch runs, each failing (or trapping in
/// debug builds) before its fix: operations whose paths differ as `PatchValue`s (so `_PatchRuns`
/// judges them unrelated) but name the same dictionary key / list id once
/// decoded (Swift `==` on the key type: canonical string equivalence, -0.0 == 0.0).
@Suite("Patch runs regressions")
struct PatchRunsRegressionTests {
    struct Pair: Codable, Equatable { var a: Int; var b: Int }
    struct ByName: Codable, Equatable { var dict: VersionedDictionary<String, Pair> }
    struct ByDouble: Codable, Equatable { var dict: VersionedDictionary<Double, Pair> }
    struct Row: Codable, Equatable, Identifiable { var id: String; var a: Int }
    struct Rows: Codable, Equatable { var rows: IdentifiedList<Row> }

    static func oneByOne<S: Codable>(_ operations: [PatchOperation], _ state: S) throws -> S {
        var result = state
        for operation in operations { result = try StatePatch<S>(operations: [operation]).apply(to: result) }
        return result
    }

    /// "é" precomposed and decomposed: one key of a `VersionedDictionary<String, _>`.
    @Test func dictionaryKeyInTwoSpellingsLosesAWrite() throws {
        let composed = "\u{e9}", decomposed = "e\u{301}"
        #expect(composed == decomposed)
        let state = ByName(dict: [composed: Pair(a: 0, b: 0)])
        let operations: [PatchOperation] = [
            .set(path: PatchPath([.field("dict"), .key(.string(composed)), .field("a")]), old: .int(0), new: .int(1)),
            .set(path: PatchPath([.field("dict"), .key(.string(decomposed)), .field("b")]), old: .int(0), new: .int(1)),
        ]
        let expected = try Self.oneByOne(operations, state)
        #expect(expected.dict[composed] == Pair(a: 1, b: 1))
        let applied = try StatePatch<ByName>(operations: operations).apply(to: state)
        #expect(applied == expected)  // lost one of the two writes, silently
    }

    /// 0.0 and -0.0: one key of a `VersionedDictionary<Double, _>`.
    @Test func dictionaryKeyZeroAndNegativeZeroLosesAWrite() throws {
        let state = ByDouble(dict: [0.0: Pair(a: 0, b: 0)])
        let operations: [PatchOperation] = [
            .set(path: PatchPath([.field("dict"), .key(.double(0.0)), .field("a")]), old: .int(0), new: .int(1)),
            .set(path: PatchPath([.field("dict"), .key(.double(-0.0)), .field("b")]), old: .int(0), new: .int(1)),
        ]
        let expected = try Self.oneByOne(operations, state)
        #expect(expected.dict[0.0] == Pair(a: 1, b: 1))
        let applied = try StatePatch<ByDouble>(operations: operations).apply(to: state)
        #expect(applied == expected)  // lost one of the two writes, silently
    }

    /// Order matters (the second reads what the first wrote): the walk
    /// failed, one at a time succeeded, and debug builds trapped ("a patch's
    /// run failed in one walk").
    @Test func dictionaryKeyInTwoSpellingsWhereTheSecondReadsTheFirst() throws {
        let composed = "\u{e9}", decomposed = "e\u{301}"
        let state = ByName(dict: [composed: Pair(a: 0, b: 0)])
        let operations: [PatchOperation] = [
            .set(path: PatchPath([.field("dict"), .key(.string(composed))]),
                 old: .object(["a": .int(0), "b": .int(0)]), new: .object(["a": .int(5), "b": .int(0)])),
            .set(path: PatchPath([.field("dict"), .key(.string(decomposed)), .field("a")]), old: .int(5), new: .int(6)),
        ]
        let applied = try StatePatch<ByName>(operations: operations).apply(to: state)
        #expect(applied.dict[composed] == Pair(a: 6, b: 0))
    }

    /// The same on an `IdentifiedList`: the second write reads the first's.
    /// The walk's order is the hash order: 200 ids, so that both orders
    /// occur.
    @Test func identifiedListIDInTwoSpellings() throws {
        for k in 0 ..< 200 {
            let composed = "\u{e9}\(k)", decomposed = "e\u{301}\(k)"
            let state = Rows(rows: IdentifiedList([Row(id: "x\(k)", a: 0), Row(id: composed, a: 0)]))
            let operations: [PatchOperation] = [
                .set(path: PatchPath([.field("rows"), .id(.string(composed)), .field("a")]), old: .int(0), new: .int(1)),
                .set(path: PatchPath([.field("rows"), .id(.string(decomposed)), .field("a")]), old: .int(1), new: .int(2)),
            ]
            let applied = try StatePatch<Rows>(operations: operations).apply(to: state)
            #expect(applied.rows[id: composed]?.a == 2, "k \(k)")
        }
    }
}

/// The same through `StoreHistory(storage: .patches)`: a key re-inserted
/// in its other spelling makes later entries' patches name it so; a jump
/// composing entries of both spellings loses a write.
struct SpelledState: Codable, Equatable, Sendable {
    var dict: VersionedDictionary<String, PatchRunsRegressionTests.Pair> = ["\u{e9}": .init(a: 0, b: 0)]
    var n = 0
}
enum SpelledAction: Sendable { case bumpA(String), bumpB(String), respell(String), inc }

func spelledStore() -> Store<SpelledState, SpelledAction> {
    Store(state: SpelledState()) { (s: inout SpelledState, a: SpelledAction) in
        switch a {
        case .bumpA(let k): s.dict[k]!.a += 1
        case .bumpB(let k): s.dict[k]!.b += 1
        case .respell(let k):
            let v = s.dict.removeValue(forKey: k)!
            s.dict[k] = v
        case .inc: s.n += 1
        }
    }
}

@Suite struct PatchRunsHistoryRegressionTests {
    /// Entry 1 writes `dict["é"].a`, entry 2 re-inserts the key decomposed
    /// (an empty patch), entry 3 writes `dict["e\u{301}"].b`. A jump from
    /// entry 9 to 3 starts from entry 0's state and applies entries 1-3 as
    /// one run: one write is lost, silently (debug and release).
    @Test func jumpAcrossAKeyRespelledLosesAWrite() throws {
        let store = spelledStore()
        let history = StoreHistory(store, storage: .patches)
        let composed = "\u{e9}", decomposed = "e\u{301}"
        var recorded = [store.state]
        for action: SpelledAction in [.bumpA(composed), .respell(decomposed), .bumpB(decomposed)] + Array(repeating: .inc, count: 6) {
            store.dispatch(action)
            recorded.append(store.state)
        }
        #expect(history.indices == 0 ... 9)
        try history.jump(to: 3)
        #expect(store.state == recorded[3])  // was (a: 1, b: 0) or (a: 0, b: 1), not (1, 1)
    }

    /// Entries whose writes depend on each other across the two spellings:
    /// the run's walk failed, one at a time succeeded, and debug builds
    /// trapped.
    @Test func jumpAcrossAKeyRespelledWhereTheSecondReadsTheFirst() throws {
        let store = spelledStore()
        let history = StoreHistory(store, storage: .patches)
        let composed = "\u{e9}", decomposed = "e\u{301}"
        for action: SpelledAction in [.bumpA(composed), .respell(decomposed), .bumpA(decomposed)] + Array(repeating: .inc, count: 6) {
            store.dispatch(action)
        }
        try history.jump(to: 3)
        #expect(store.state.dict[composed] == .init(a: 2, b: 0))
    }
}
