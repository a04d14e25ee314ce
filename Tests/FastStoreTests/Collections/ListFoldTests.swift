@testable import FastStore
import FastStoreTestSupport
import Testing

// Summaries over `Int` covering the built-ins and a non-commutative one.
enum Evens: CountingSummary {
    static func counts(_ x: Int) -> Bool { x % 2 == 0 }
}

enum Total: SumSummary {
    static func term(_ x: Int) -> Int { x }
}

enum Least: MinimumSummary {
    static func key(_ x: Int) -> Int { x }
}

enum Greatest: MaximumSummary {
    static func key(_ x: Int) -> Int { x }
}

/// A polynomial hash of the sequence: associative, not commutative, so a
/// summary combined out of order shows.
enum OrderHash: ListSummary {
    struct Value: Equatable {
        var hash: UInt64
        var power: UInt64
    }
    static var identity: Value { Value(hash: 0, power: 1) }
    static func summarize(_ x: Int) -> Value { Value(hash: UInt64(bitPattern: Int64(x)) &+ 1, power: 1_000_003) }
    static func combine(_ a: Value, _ b: Value) -> Value {
        Value(hash: a.hash &* b.power &+ b.hash, power: a.power &* b.power)
    }
}

/// Every attached fold of `list` equals its recomputation from `values`.
func foldsMatch(_ list: VersionedList<Int>, _ values: [Int]) -> Bool {
    list.fold(Evens.self) == Evens.fold(values)
        && list.fold(Total.self) == Total.fold(values)
        && list.fold(Least.self) == values.min()
        && list.fold(Greatest.self) == values.max()
        && list.fold(OrderHash.self) == OrderHash.fold(values)
}

@Suite("List folds")
struct ListFoldTests {
    @Test(arguments: [0, 200, 3000])
    func differentialAgainstRecomputation(initialCount: Int) {
        var fuzzer = ListFuzzer(fallbackSeed: 0xF01D &+ UInt64(initialCount))
        let seed = fuzzer.seed
        let initial = (0 ..< initialCount).map { _ in fuzzer.value() }
        var list = VersionedList(initial, folds: [Evens.self, Total.self, Least.self, Greatest.self])
        list.attach(OrderHash.self)
        var model = ListReferenceModel(initial)
        var hidden = HiddenCopies<VersionedList<Int>, [Int]>(limit: 6)
        for step in 0 ..< 1000 {
            var what: String
            switch fuzzer.int(0 ... 199) {
            case 0:
                list.removeAll()
                model.replaceSubrange(0 ..< model.count, with: [])
                what = "removeAll()"
            case 1:
                let values = (0 ..< fuzzer.int(0 ... 3000)).map { _ in fuzzer.value() }
                list.replaceSubrange(0 ..< list.count, with: values)
                model.replaceSubrange(0 ..< model.count, with: values)
                what = "wholesale replacement with \(values.count)"
            case 2 where model.count > 1:
                let from = fuzzer.int(0 ... model.count - 1), to = fuzzer.int(0 ... model.count - 2)
                let x = list.remove(at: from)
                list.insert(x, at: to)
                let y = model.values[from]
                model.remove(at: from)
                model.insert(y, at: to)
                what = "move \(from) → \(to)"
            default:
                what = fuzzer.step(&list, &model)
            }
            #if FASTSTORE_INTERNAL_CHECKS
            // NB: writes check the tree (folds included, `_WholeCheck`);
            // this adds the whole-list checks now and then.
            if step % 10 == 0 { list._invariantCheck() }
            #endif
            guard foldsMatch(list, model.values) else {
                Issue.record("seed \(seed) (FASTSTORE_SEED=\(seed)), step \(step) (\(what)): fold diverged")
                return
            }
            if fuzzer.int(0 ... 9) == 0 { hidden.keep(list, model.values) }
            if step % 50 == 0 {
                var hiddenOK = true
                hidden.verify { copy, values in if !foldsMatch(copy, values) { hiddenOK = false } }
                guard hiddenOK else {
                    Issue.record("seed \(seed), step \(step) (\(what)): an older copy's fold changed")
                    return
                }
            }
        }
        hidden.verify { copy, values in
            #expect(foldsMatch(copy, values), "seed \(seed): an older copy's fold changed")
        }
    }

    @Test func attachingIsNotAWriteAndSparesOlderCopies() {
        var list = VersionedList(0 ..< 10_000)
        let before = list
        let version = list.version
        list.attach(Total.self)
        #expect(list.version == version)
        #expect(list == before)
        #expect(list.isAttached(Total.self) && !before.isAttached(Total.self))
        list[5_000] = 0
        #expect(list.fold(Total.self) == (0 ..< 10_000).reduce(0, +) - 5_000)
        #expect(before.fold(Total.self) == (0 ..< 10_000).reduce(0, +), "computed, not attached")
        list.attach(Total.self)  // again: no-op
        list.detach(Total.self)
        #expect(!list.isAttached(Total.self))
        #expect(list.fold(Total.self) == (0 ..< 10_000).reduce(0, +) - 5_000)
        #if FASTSTORE_INTERNAL_CHECKS
        list._invariantCheck()
        #endif
    }

    @Test func detachKeepsTheOtherFolds() {
        var list = VersionedList(0 ..< 3_000, folds: [Evens.self, Total.self, Greatest.self])
        list.detach(Total.self)
        #expect(list.isAttached(Evens.self) && !list.isAttached(Total.self) && list.isAttached(Greatest.self))
        list.append(10_000)
        #expect(list.fold(Evens.self) == 1_501)
        #expect(list.fold(Greatest.self) == 10_000)
        #if FASTSTORE_INTERNAL_CHECKS
        list._invariantCheck()
        #endif
    }

    @Test func largeListUpdatesAlongThePath() {
        var rng = SeededGenerator.fromEnvironment(fallback: 0xB16)
        var list = VersionedList(repeating: 1, count: 200_000)
        list.attach(Evens.self)
        var evens = 0
        let old = list
        for _ in 0 ..< 2_000 {
            let i = Int.random(in: 0 ..< list.count, using: &rng)
            let wasEven = list[i] % 2 == 0
            list[i] += 1
            evens += wasEven ? -1 : 1
        }
        #expect(list.fold(Evens.self) == evens)
        #expect(old.fold(Evens.self) == 0)
        #expect(list.fold(Evens.self) == Evens.fold(list), "seed \(rng.seed)")
    }

    @Test func aFoldReadRecordsTheWholeList() {
        var list = VersionedList(0 ..< 1000)
        list.attach(Total.self)
        let recorder = _ReadRecorder()
        _ = recorder.record { list.fold(Total.self) }
        #expect(recorder.dependencies == [_Dependency(node: list.nodeID, kind: .whole)])
    }

    @Test func memoryOfACountFold() {
        // One column (object and values buffer) per branch: well under a
        // byte per element once leaves are full.
        for (n, perElement) in [(1_000_000, 0.5), (200_000, 0.5)] {
            var list = VersionedList(repeating: 0, count: n)
            list.attach(Evens.self)
            var branches = 0
            var values = 0
            func walk(_ node: _ListNode<Int>) {
                guard node.height > 0 else { return }
                branches += 1
                values += node.children.count
                for child in node.children { walk(child) }
            }
            walk(list._root)
            // object: 16 header + next + summary + values + total = 48;
            // buffer: 32 header + 8 per value.
            let bytes = branches * (48 + 32) + values * 8
            #expect(Double(bytes) / Double(n) <= perElement, "\(bytes) bytes for \(n) elements")
        }
    }
}
