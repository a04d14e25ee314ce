import Dispatch
import Foundation
@_spi(Testing) import FastStore
import Testing

// Regression tests from a hostile review of `StoreHistory(storage: .patches)`
// and of `StatePatch`: each failed before its fix (a crash, a thrown
// `PatchError`, or a wrong state after a move).

struct RCounter: Codable, Equatable, Sendable { var n = 0 }
enum RInc: Sendable { case inc }

/// A state whose encoding throws while `poisoned`.
struct RPoison: Codable, Equatable, Sendable {
    var n = 0
    var poisoned = false
    enum CodingKeys: String, CodingKey { case n, poisoned }
    init(n: Int = 0, poisoned: Bool = false) { self.n = n; self.poisoned = poisoned }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        n = try c.decode(Int.self, forKey: .n)
        poisoned = try c.decode(Bool.self, forKey: .poisoned)
    }
    func encode(to encoder: any Encoder) throws {
        if poisoned { throw EncodingError.invalidValue(n, .init(codingPath: [], debugDescription: "poisoned")) }
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(n, forKey: .n)
        try c.encode(poisoned, forKey: .poisoned)
    }
}
enum RPoisonAction: Sendable { case inc, poison }

enum RPhase: Codable, Equatable, Sendable { case idle, loading(Int), done(String) }
struct RPhased: Codable, Equatable, Sendable { var phase: RPhase = .idle }

struct RTags: Codable, Equatable, Sendable { var tags: Set<Int> = Set(0 ..< 64) }

struct RReading: Codable, Equatable, Sendable { var n = 0; var ratio = Double.nan }

struct RZero: Codable, Equatable, Sendable { var x = 0.0 }

struct RText: Codable, Equatable, Sendable { var s = "caf\u{E9}" }

@Suite struct PatchHistoryRegressionTests {
    // 1. A state whose encoding throws is "kept whole" (patch nil); a move
    // that walks down from it force-unwraps the missing patch.
    @Test func undoFromAnEntryWhoseEncodingThrew() throws {
        let store = Store(state: RPoison()) { (s: inout RPoison, a: RPoisonAction) in
            switch a { case .inc: s.n += 1; case .poison: s.poisoned = true }
        }
        let history = StoreHistory(store, storage: .patches)
        store.dispatch(.inc)     // entry 1 (patch)
        store.dispatch(.inc)     // entry 2 (patch)
        store.dispatch(.poison)  // entry 3: diff throws, state kept, patch nil
        try history.undo()       // target 2: nearest known is 3 (current) -> self[3].patch!
        #expect(history.currentIndex == 2)
        #expect(store.state == RPoison(n: 2))
    }

    // 2. An enum with associated values changing case: the patch's ops
    // (remove one key, add another) leave an undecodable intermediate.
    @Test func undoAcrossAnEnumCaseChange() throws {
        let store = Store(state: RPhased()) { (s: inout RPhased, a: RPhase) in s.phase = a }
        let history = StoreHistory(store, storage: .patches)
        store.dispatch(.done("a"))   // entry 1
        store.dispatch(.done("b"))   // entry 2
        store.dispatch(.loading(1))  // entry 3: case change
        try history.undo()           // rebuilt from the current state: inverted patch 3
        #expect(store.state.phase == .done("b"))
    }

    // 3. A Set is an unkeyed array in its (per-instance) iteration order; a
    // rebuilt state's set orders differently from the recorded one.
    @Test func jumpTwoEntriesBackWithASet() throws {
        let store = Store(state: RTags()) { (s: inout RTags, a: Int) in s.tags.insert(a) }
        let history = StoreHistory(store, storage: .patches)
        for k in 100 ... 104 { store.dispatch(k) }   // entries 1...5
        try history.jump(to: 3)                      // inverted patches 5, then 4 (on a rebuilt state)
        #expect(store.state.tags == Set(0 ..< 64).union(100 ... 102))
    }

    // 4. NaN != NaN: every batch records set(ratio: NaN -> NaN), whose
    // check fails on the way back.
    @Test func undoWithANaNField() throws {
        let store = Store(state: RReading()) { (s: inout RReading, _: RInc) in s.n += 1 }
        let history = StoreHistory(store, storage: .patches)
        store.dispatch(.inc)
        store.dispatch(.inc)
        try history.undo()
        #expect(store.state.n == 1)
    }

    // 5. 0.0 == -0.0 (and canonically equivalent strings are ==): the diff
    // records nothing, the undo republishes the wrong value.
    @Test func undoOfASignedZero() throws {
        let store = Store(state: RZero(x: 1)) { (s: inout RZero, x: Double) in s.x = x }
        let history = StoreHistory(store, storage: .patches)
        store.dispatch(2)      // entry 1
        store.dispatch(0.0)    // entry 2
        store.dispatch(-0.0)   // entry 3: the diff sees no change
        #expect(history[2]!.state.x.sign == .plus, "history[2].x = \(history[2]!.state.x)")
        try history.undo()
        #expect(store.state.x.sign == .plus, "undo left x = \(store.state.x)")
    }

    @Test func undoOfAUnicodeNormalisation() throws {
        let store = Store(state: RText()) { (s: inout RText, x: String) in s.s = x }
        let history = StoreHistory(store, storage: .patches)
        store.dispatch("a")            // entry 1
        store.dispatch("caf\u{E9}")    // entry 2 (precomposed)
        store.dispatch("cafe\u{301}")  // entry 3 (decomposed): == entry 2's
        try history.undo()
        #expect(Array(store.state.s.unicodeScalars) == Array("caf\u{E9}".unicodeScalars), "\(store.state.s.unicodeScalars.map { $0.value })")
    }

}

final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var _value = false
    var value: Bool {
        get { lock.withLock { _value } }
        set { lock.withLock { _value = newValue } }
    }
}

@Suite struct PatchHistoryReadRegressionTests {
    // Reading an entry (no move) traps when its rebuild hits a patch that
    // does not apply: the same Set-ordering case as above.
    @Test func readingAnEntryOfASetState() {
        let store = Store(state: RTags()) { (s: inout RTags, a: Int) in s.tags.insert(a) }
        let history = StoreHistory(store, storage: .patches)
        for k in 100 ... 104 { store.dispatch(k) }   // entries 1...5
        #expect(history[3]?.state.tags == Set(0 ..< 64).union(100 ... 102))
    }
}

struct UTags: Codable, Equatable, Sendable { var tags: Set<Int> = Set(0 ..< 64) }
/// Not `CodingKeyRepresentable`: a dictionary keyed by it encodes as a flat
/// array `[k0, v0, k1, v1, …]`.
struct UKey: Codable, Hashable, Sendable { var v: Int }
struct UDict: Codable, Equatable, Sendable {
    var d: [UKey: Int] = Dictionary(uniqueKeysWithValues: (0 ..< 64).map { (UKey(v: $0), 1) })
}
struct UList: Codable, Equatable, Sendable { var list: [Int] }

/// From a second review: unordered collections in patches. Each test failed
/// before `Set`s and array-encoded dictionaries became whole, order-free
/// leaves of the patch encoding (`_PatchUnordered`), and the old-value check
/// exact elsewhere.
@Suite struct UnorderedPatchRegressionTests {
    /// A Set changed without changing size was diffed by position, in the
    /// saved instance's order: a rebuilt Set threw `mismatch(tags[35])`.
    @Test func aSameSizeSetChangeJumpsBack() throws {
        let store = Store(state: UTags()) { (s: inout UTags, k: Int) in s.tags.remove(k); s.tags.insert(k + 1000) }
        let history = StoreHistory(store, storage: .patches)
        for k in 0 ..< 5 { store.dispatch(k) }
        try history.jump(to: 2)
        #expect(store.state.tags == Set(0 ..< 64).subtracting(0 ..< 2).union(1000 ..< 1002))
        try history.jump(to: 5)
        #expect(store.state.tags == Set(0 ..< 64).subtracting(0 ..< 5).union(1000 ..< 1005))
    }

    /// A dictionary keyed by a struct: the old value at a position was a
    /// scalar that matched at the wrong position, and the state came back
    /// wrong, silently (20 trials: the order differs between instances).
    @Test func aStructKeyedDictionaryUndoesAndRedoes() throws {
        var failures: [String] = []
        for trial in 0 ..< 20 {
            let store = Store(state: UDict()) { (s: inout UDict, k: Int) in s.d[UKey(v: k)] = 5 }
            let history = StoreHistory(store, storage: .patches)
            store.dispatch(1); store.dispatch(2); store.dispatch(3)
            do {
                try history.jump(to: 0)
                if store.state != UDict() { failures.append("trial \(trial): jump(0)") }
                try history.jump(to: 3)
                let fives = store.state.d.filter { $0.value == 5 }.keys.map(\.v).sorted()
                if fives != [1, 2, 3] { failures.append("trial \(trial): jump(3) gave 5s at \(fives)") }
            } catch {
                failures.append("trial \(trial): \(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.prefix(3))")
    }

    /// The order-free check of the first fix accepted an ordered array in
    /// another order, and a dictionary whose values were swapped between
    /// keys: both must be refused.
    @Test func aPatchIsRefusedOnABaseThatDiffers() throws {
        let patch = try StatePatch(from: UList(list: [1, 2]), to: UList(list: [1, 2, 3]))
        #expect(throws: PatchError.self) { try patch.apply(to: UList(list: [2, 1])) }
        struct D: Codable, Equatable { var d: [UKey: Int] }
        let a = UKey(v: 1), b = UKey(v: 2), c = UKey(v: 3)
        let dictionaryPatch = try StatePatch(from: D(d: [a: 2, b: 1]), to: D(d: [a: 2, b: 1, c: 3]))
        #expect(throws: PatchError.self, "\(dictionaryPatch)") { try dictionaryPatch.apply(to: D(d: [a: 1, b: 2])) }
        // And accepted on an equal base in another order.
        #expect(try dictionaryPatch.apply(to: D(d: [b: 1, a: 2])) == D(d: [a: 2, b: 1, c: 3]))
    }

    /// Two equal Sets in different orders are no change.
    @Test func equalSetsInAnotherOrderAreNoChange() throws {
        let a = UTags(tags: Set((0 ..< 64).reversed()))
        var b = UTags(tags: [])
        for k in 0 ..< 64 { b.tags.insert(k) }
        #expect(try StatePatch(from: a, to: b).isEmpty)
    }
}
