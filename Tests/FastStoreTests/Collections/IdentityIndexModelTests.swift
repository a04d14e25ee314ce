@testable import FastStore
import FastStoreTestSupport
import Testing

/// A key whose hash puts `x / 100` in a group: 100 ids share each full
/// hash, so leaves at the last level hold more than a leaf's capacity.
struct ClusteredKey: Hashable, Sendable, CustomStringConvertible {
    var x: Int
    static func == (a: Self, b: Self) -> Bool { a.x == b.x }
    func hash(into hasher: inout Hasher) { hasher.combine(x / 100) }
    var description: String { "c\(x)" }
}

/// A key with a chosen `hashValue`: ids that share a fragment, or
/// fragments that differ only in chosen bits.
struct FixedHashKey: Hashable, Sendable, CustomStringConvertible {
    var x: Int
    var hash: Int
    static func == (a: Self, b: Self) -> Bool { a.x == b.x }
    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    var hashValue: Int { hash }
    var description: String { "f\(x)" }
}

/// The branches of an index (splits add them, merges remove them).
private func branchCount(_ index: _IdentityIndex) -> Int {
    func count(_ node: _IdentityNode) -> Int {
        guard !node.isLeaf else { return 0 }
        return 1 + unsafeDowncast(node, to: _IdentityBranch.self).children.reduce(0) { $0 + count($1) }
    }
    return index._root.map(count) ?? 0
}

/// `IdentifiedList`'s id index (a multiset of entries: a fragment and a
/// label) against a sorted array of entries, on random writes with older
/// versions kept (each must still read as it was), and its bulk build
/// against the same entries inserted one by one.
@Suite("IdentityIndex")
struct IdentityIndexModelTests {
    private typealias Index = _IdentityIndex

    /// A model: the entries, as a multiset.
    private struct Model {
        var entries: [UInt64] = []

        func labels(_ fragment: UInt32) -> [UInt64] {
            entries.filter { Index.fragment(ofEntry: $0) == fragment }.map(Index.label(ofEntry:)).sorted()
        }

        /// The leaf labels under `fragment`, sorted.
        func leaves(_ fragment: UInt32) -> [UInt64] { labels(fragment).map { $0 & ~Index.hintMask } }
    }

    private func check(_ index: Index, _ model: Model, _ probes: [UInt32], _ context: String) -> Bool {
        #if FASTSTORE_INTERNAL_CHECKS
        index._invariantCheck()
        #endif
        guard index.count == model.entries.count else {
            Issue.record("\(context): count \(index.count), model \(model.entries.count)")
            return false
        }
        var listed: [UInt64] = []
        index.forEach { listed.append($0) }
        guard listed.sorted() == model.entries.sorted() else {
            Issue.record("\(context): forEach diverged from the model")
            return false
        }
        let byFragment = Dictionary(grouping: model.entries, by: Index.fragment(ofEntry:))
        for fragment in probes {
            var found: [UInt64] = []
            let none: Int? = index.first(fragment) { found.append($0); return nil }
            let expected = (byFragment[fragment] ?? []).map(Index.label(ofEntry:)).sorted()
            guard none == nil, found.sorted() == expected else {
                Issue.record("\(context): labels under \(fragment) are \(found.sorted()), model \(expected)")
                return false
            }
        }
        return true
    }

    /// A random label (a leaf label, a multiple of 64, and a hint).
    private func label(using rng: inout SeededGenerator) -> UInt64 {
        UInt64.random(in: 1 ..< 1 << 12, using: &rng) << 6 | UInt64.random(in: 0 ..< 64, using: &rng)
    }

    /// Random inserts, removals, refiles and ranged removals, with
    /// `fragment(k)` for k in `0 ..< keySpace`: every write checked against
    /// the model, kept versions too.
    private func run(fragment: (Int) -> UInt32, keySpace: Int, steps: Int, fallbackSeed: UInt64) {
        var rng = SeededGenerator.fromEnvironment(fallback: fallbackSeed)
        let seed = rng.seed
        var index = Index()
        var model = Model()
        var kept: [(Index, Model)] = []
        let probes = Array(Set((0 ..< keySpace).map(fragment)))
        for step in 0 ..< steps {
            let context = "seed \(seed) step \(step)"
            let f = fragment(Int.random(in: 0 ..< keySpace, using: &rng))
            switch Int.random(in: 0 ..< 20, using: &rng) {
            case 0 ..< 9:
                // NB: one entry per fragment and leaf label, as the list
                // files them (two elements of a leaf may share a fragment,
                // but then removing either entry is the same).
                let l = label(using: &rng)
                guard !model.leaves(f).contains(l & ~Index.hintMask) else { continue }
                index.insert(Index.entry(f, l))
                model.entries.append(Index.entry(f, l))
            case 9 ..< 14:
                let leaves = model.leaves(f)
                let leaf = leaves.isEmpty || Bool.random(using: &rng)
                    ? label(using: &rng) & ~Index.hintMask : leaves.randomElement(using: &rng)!
                let removed = index.remove(f, leafLabel: leaf)
                let i = model.entries.firstIndex { Index.fragment(ofEntry: $0) == f && Index.leafLabel(ofEntry: $0) == leaf }
                if let i { model.entries.remove(at: i) }
                guard removed == (i != nil) else {
                    Issue.record("\(context): remove returned \(removed)")
                    return
                }
            case 14 ..< 18:
                // A refile between the leaf labels on either side of one of
                // the fragment's entries (or of none).
                let leaves = model.leaves(f)
                let pivot = leaves.isEmpty ? label(using: &rng) & ~Index.hintMask : leaves.randomElement(using: &rng)!
                let lower = leaves.last { $0 < pivot } ?? 0
                let upper = leaves.first { $0 > pivot } ?? Index.labelLimit
                guard upper - lower > 128 else { continue }
                let new = (UInt64.random(in: lower + 64 ..< upper, using: &rng) & ~Index.hintMask) | UInt64.random(in: 0 ..< 64, using: &rng)
                index.refile(Index.entry(f, new), between: lower, and: upper)
                if let i = model.entries.firstIndex(where: {
                    Index.fragment(ofEntry: $0) == f && Index.leafLabel(ofEntry: $0) > lower && Index.leafLabel(ofEntry: $0) < upper
                }) {
                    if Index.leafLabel(ofEntry: model.entries[i]) != new & ~Index.hintMask { model.entries[i] = Index.entry(f, new) }
                } else {
                    model.entries.append(Index.entry(f, new))
                }
            case 18:
                let a = label(using: &rng), b = label(using: &rng)
                let removed = index.removeAll(f, between: min(a, b), and: max(a, b))
                let before = model.entries.count
                model.entries.removeAll {
                    Index.fragment(ofEntry: $0) == f && Index.leafLabel(ofEntry: $0) > min(a, b) && Index.leafLabel(ofEntry: $0) < max(a, b)
                }
                guard removed == before - model.entries.count else {
                    Issue.record("\(context): removeAll removed \(removed), model \(before - model.entries.count)")
                    return
                }
            default:
                // NB: a version kept alive: later writes must copy the
                // nodes it shares.
                kept.append((index, model))
                if kept.count > 6 { kept.removeFirst() }
            }
            if step % 97 == 0 || step == steps - 1 {
                guard check(index, model, probes, context) else { return }
                for (k, version) in kept.enumerated() {
                    guard check(version.0, version.1, probes, "\(context), kept version \(k)") else { return }
                }
            }
        }
        // The bulk build of the final entries reads as the model too.
        let entries = model.entries
        var duplicate: Int? = nil
        guard let built = Index.build(count: entries.count, duplicate: &duplicate, sameID: { _, _ in false }, entry: {
            entries[$0]
        }) else {
            Issue.record("seed \(seed): the bulk build found a duplicate at \(String(describing: duplicate))")
            return
        }
        _ = check(built, model, probes, "seed \(seed): bulk build")
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func randomWritesMatchAMultiset(seed: UInt64) {
        run(fragment: { _IdentityIndex.fragment(of: $0) }, keySpace: 3_000, steps: 9_000, fallbackSeed: seed)
    }

    @Test func fragmentsSharedByManyEntries() {
        // Five fragments: leaves past the last level, many entries each.
        run(fragment: { _IdentityIndex.fragment(of: CollidingKey(x: $0)) }, keySpace: 400, steps: 4_000, fallbackSeed: 12)
        // Fragments that differ only in bits 20 to 31: the deepest levels.
        run(fragment: { UInt32($0 % 4_096) << 20 }, keySpace: 8_000, steps: 6_000, fallbackSeed: 13)
    }

    /// Every key inserted in a random order, a third refiled, then every
    /// entry removed in another order, twice, with versions kept all along:
    /// splits and merges both happen (counted), and every kept version
    /// still reads as it was.
    private func growAndShrink(fragment: (Int) -> UInt32, count: Int, seed: UInt64) {
        var rng = SeededGenerator.fromEnvironment(fallback: seed)
        let seed = rng.seed
        var index = Index()
        var model = Model()
        var kept: [(Index, Model)] = []
        let probes = Array(Set((0 ..< count).map(fragment)))
        var splits = 0, merges = 0, step = 0
        func keepAndCheck(_ context: String) -> Bool {
            step += 1
            if step % 41 == 0 {
                kept.append((index, model))
                if kept.count > 6 { kept.removeFirst() }
            }
            guard step % 97 == 0 else { return true }
            guard check(index, model, probes, "seed \(seed) \(context)") else { return false }
            for (k, version) in kept.enumerated() {
                guard check(version.0, version.1, probes, "seed \(seed) \(context), kept version \(k)") else { return false }
            }
            return true
        }
        for round in 0 ..< 2 {
            // NB: key x files under label (x + 1) * 64, so each entry is
            // the only one of its fragment and leaf.
            for x in (0 ..< count).shuffled(using: &rng) {
                let before = branchCount(index)
                let entry = Index.entry(fragment(x), UInt64(x + 1) << 6)
                index.insert(entry)
                model.entries.append(entry)
                if branchCount(index) > before { splits += 1 }
                guard keepAndCheck("round \(round), insert \(x)") else { return }
            }
            for x in (0 ..< count).shuffled(using: &rng).prefix(count / 3) {
                let old = UInt64(x + 1) << 6
                let entry = Index.entry(fragment(x), old | 7)
                index.refile(entry, between: old - 1, and: old + 1)
                guard keepAndCheck("round \(round), refile \(x)") else { return }
            }
            for x in (0 ..< count).shuffled(using: &rng) {
                let before = branchCount(index)
                guard index.remove(fragment(x), leafLabel: UInt64(x + 1) << 6) else {
                    Issue.record("seed \(seed) round \(round): entry \(x) not removed")
                    return
                }
                model.entries.removeAll { Index.fragment(ofEntry: $0) == fragment(x) && Index.leafLabel(ofEntry: $0) == UInt64(x + 1) << 6 }
                if branchCount(index) < before { merges += 1 }
                guard keepAndCheck("round \(round), remove \(x)") else { return }
            }
            #expect(index.count == 0 && index._root == nil)
        }
        #expect(splits > 0 && merges > 0, "seed \(seed): \(splits) splits, \(merges) merges")
        for (k, version) in kept.enumerated() {
            _ = check(version.0, version.1, probes, "seed \(seed) at the end, kept version \(k)")
        }
    }

    @Test func growAndShrinkSplitsAndMerges() {
        growAndShrink(fragment: { _IdentityIndex.fragment(of: $0) }, count: 2_500, seed: 21)
        // Groups of 100 keys sharing a fragment: leaves past the last level.
        growAndShrink(fragment: { _IdentityIndex.fragment(of: ClusteredKey(x: $0)) }, count: 700, seed: 22)
        // Fragments that differ only in bits 25 to 31: the last branch
        // level, and the two bits past it.
        growAndShrink(fragment: { UInt32($0 % 128) << 25 }, count: 128 * 20, seed: 23)
    }

    @Test func bulkBuildsOfEverySizeAroundALeaf() {
        for size in [0, 1, 2, 63, 64, 65, 66, 1_000, 33_000] {
            let entries = (0 ..< size).map { Index.entry(Index.fragment(of: $0 &* 7_919), UInt64($0 + 1) << 6) }
            var duplicate: Int? = nil
            guard let built = Index.build(count: size, duplicate: &duplicate, sameID: { $0 == $1 }, entry: { entries[$0] }) else {
                Issue.record("size \(size): a duplicate \(String(describing: duplicate))")
                continue
            }
            let model = Model(entries: entries)
            let probes = entries.map(Index.fragment(ofEntry:)) + [12_345]
            guard check(built, model, probes, "size \(size): the build") else { continue }
            // A copy written down to half: the built version is untouched.
            var copy = built
            for entry in entries.prefix(40) {
                let leaf = Index.leafLabel(ofEntry: entry)
                copy.refile(Index.entry(Index.fragment(ofEntry: entry), 999 << 6), between: leaf - 1, and: leaf + 1)
            }
            for entry in entries.suffix(size / 2) { copy.remove(Index.fragment(ofEntry: entry), leafLabel: Index.leafLabel(ofEntry: entry)) }
            _ = check(built, model, probes, "size \(size): the build after writes of a copy")
        }
    }

    /// The bulk build's duplicate check against a `Set`, on seeded random
    /// ids, some of them repeated: plain `Int`s, ids whose hashes come in
    /// groups of four (equal fragments, different ids, in one leaf's slot
    /// chain) and groups of a hundred sharing a hash (leaves past the last
    /// level, compared pairwise).
    @Test(arguments: [UInt64(31), 32, 33])
    func bulkBuildFindsADuplicateExactlyWhenASetDoes(seed: UInt64) {
        var rng = SeededGenerator.fromEnvironment(fallback: seed)
        let seed = rng.seed
        func check<K: Hashable>(_ ids: [K], _ context: String) {
            var duplicate: Int? = nil
            let built = Index.build(count: ids.count, duplicate: &duplicate, sameID: { ids[$0] == ids[$1] }) {
                Index.entry(Index.fragment(of: ids[$0]), UInt64($0) << 6)
            }
            let repeated = Set(ids).count != ids.count
            #expect((built == nil) == repeated, "seed \(seed) \(context): built \(built != nil), a repeat \(repeated)")
            if let duplicate {
                #expect(ids.filter { $0 == ids[duplicate] }.count >= 2, "seed \(seed) \(context): \(ids[duplicate]) is not repeated")
            } else {
                #expect(!repeated, "seed \(seed) \(context): no duplicate named")
            }
        }
        for round in 0 ..< 40 {
            let count = Int.random(in: 2 ... 4_000, using: &rng)
            var xs = Array(0 ..< count).shuffled(using: &rng)
            if Bool.random(using: &rng) {
                let twin = xs[Int.random(in: 0 ..< count, using: &rng)]
                xs.insert(twin, at: Int.random(in: 0 ... count, using: &rng))
            }
            check(xs.map { $0 &* 7_919 }, "round \(round), Int ids")
            check(xs.map { FixedHashKey(x: $0, hash: $0 >> 2) }, "round \(round), hashes in fours")
            if count <= 1_000 { check(xs.map { ClusteredKey(x: $0) }, "round \(round), hashes in hundreds") }
        }
    }

    @Test func aWriteOfASharedIndexCopiesOnlyItsPath() {
        var index = Index()
        for k in 0 ..< 20_000 { index.insert(Index.entry(Index.fragment(of: k), UInt64(k + 1) << 6)) }
        let before = index
        let f = Index.fragment(of: 19_999)
        index.refile(Index.entry(f, 7 << 6), between: 0, and: Index.labelLimit)
        #expect(before.first(f) { $0 } == 20_000 << 6)
        #expect(index.first(f) { $0 } == 7 << 6)
        // NB: every other branch of the root is still shared.
        let old = before._root as! _IdentityBranch
        let new = index._root as! _IdentityBranch
        #expect(old !== new)
        let shared = zip(old.children, new.children).filter { $0.0 === $0.1 }.count
        #expect(shared == old.children.count - 1)
    }
}

/// An `IdentifiedList` of 1,000,000 rows against an array on seeded random
/// writes by id, insertions, removals and moves, with a version kept from
/// the middle of the run: the id index at the size it is built for.
@Suite("IdentifiedList at 1,000,000 rows")
struct IdentifiedListMillionTests {
    @Test func randomOperationsOnAMillionRowsMatchAnArray() {
        let n = 1_000_000
        var rng = SeededGenerator.fromEnvironment(fallback: 1_000_000)
        let seed = rng.seed
        var model = (0 ..< n).map { Row(id: $0, value: $0) }
        var list = IdentifiedList(model)
        var nextID = n
        var kept: (IdentifiedList<Row>, [Row])? = nil
        func probe(_ list: IdentifiedList<Row>, _ model: [Row], _ context: String, using rng: inout SeededGenerator) -> Bool {
            for _ in 0 ..< 300 {
                let position = Int.random(in: 0 ..< model.count, using: &rng)
                let row = model[position]
                guard list[id: row.id] == row, list.index(id: row.id) == position else {
                    Issue.record("seed \(seed), \(context): id \(row.id) at \(position) reads \(String(describing: list[id: row.id])) at \(String(describing: list.index(id: row.id)))")
                    return false
                }
            }
            return list.count == model.count
        }
        for step in 0 ..< 3_000 {
            switch Int.random(in: 0 ..< 20, using: &rng) {
            case 0 ..< 12:
                let position = Int.random(in: 0 ..< model.count, using: &rng)
                let id = model[position].id
                let value = Int.random(in: 0 ..< 1_000, using: &rng)
                list[id: id]?.value = value
                model[position].value = value
            case 12 ..< 15:
                let position = Int.random(in: 0 ... model.count, using: &rng)
                let row = Row(id: nextID, value: step)
                nextID += 1
                list.insert(row, at: position)
                model.insert(row, at: position)
            case 15 ..< 18:
                let position = Int.random(in: 0 ..< model.count, using: &rng)
                let removed = list.remove(id: model[position].id)
                guard removed == model.remove(at: position) else {
                    Issue.record("seed \(seed) step \(step): remove(id:) returned \(String(describing: removed))")
                    return
                }
            default:
                let from = Int.random(in: 0 ..< model.count, using: &rng)
                let to = Int.random(in: 0 ..< model.count, using: &rng)
                list.move(from: from, to: to)
                model.insert(model.remove(at: from), at: to)
            }
            if step == 1_500 { kept = (list, model) }
            if step % 500 == 499, !probe(list, model, "step \(step)", using: &rng) { return }
        }
        #expect(list.ids == model.map(\.id), "seed \(seed): the order diverged")
        #expect(Array(list) == model, "seed \(seed): the rows diverged")
        if let (oldList, oldModel) = kept {
            #expect(probe(oldList, oldModel, "the version kept at step 1,500", using: &rng))
            #expect(Array(oldList) == oldModel, "seed \(seed): the kept version changed")
        }
    }
}
