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
