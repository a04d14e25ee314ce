@testable import FastStore
import FastStoreTestSupport
import Testing

/// A key whose hash puts `x / 100` in a group: 100 ids share each full
/// hash, so leaves at the last level hold more than a leaf's capacity.
private struct ClusteredKey: Hashable, CustomStringConvertible {
    var x: Int
    static func == (a: Self, b: Self) -> Bool { a.x == b.x }
    func hash(into hasher: inout Hasher) { hasher.combine(x / 100) }
    var description: String { "c\(x)" }
}

/// A key with a chosen `hashValue`: ids that share a full hash, or hashes
/// that differ only in chosen bits.
private struct FixedHashKey: Hashable, CustomStringConvertible {
    var x: Int
    var hash: Int
    static func == (a: Self, b: Self) -> Bool { a.x == b.x }
    func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    var hashValue: Int { hash }
    var description: String { "f\(x)" }
}

/// The branches of an index (splits add them, merges remove them).
private func branchCount<K>(_ index: _IdentityIndex<K>) -> Int {
    func count(_ node: _IdentityNode<K>) -> Int {
        guard !node.isLeaf else { return 0 }
        return 1 + unsafeDowncast(node, to: _IdentityBranch<K>.self).children.reduce(0) { $0 + count($1) }
    }
    return index._root.map(count) ?? 0
}

/// `IdentifiedList`'s id index against a `Dictionary`, on random writes with
/// older versions kept (each must still read as it was), and its bulk build
/// against the same entries inserted one by one.
@Suite("IdentityIndex")
struct IdentityIndexModelTests {
    private func check<K: Hashable>(
        _ index: _IdentityIndex<K>, _ model: [K: UInt64], _ probes: [K], _ context: String
    ) -> Bool {
        #if FASTSTORE_INTERNAL_CHECKS
        index._invariantCheck()
        #endif
        guard index.count == model.count else {
            Issue.record("\(context): count \(index.count), model \(model.count)")
            return false
        }
        var listed: [K: UInt64] = [:]
        index.forEach { id, label in listed[id] = label }
        guard listed == model else {
            Issue.record("\(context): forEach diverged from the model")
            return false
        }
        for key in probes where index.label(for: key) != model[key] {
            Issue.record("\(context): label(for: \(key)) is \(String(describing: index.label(for: key))), model \(String(describing: model[key]))")
            return false
        }
        return true
    }

    private func run<K: Hashable>(key: (Int) -> K, keySpace: Int, steps: Int, fallbackSeed: UInt64) {
        var rng = SeededGenerator.fromEnvironment(fallback: fallbackSeed)
        let seed = rng.seed
        var index = _IdentityIndex<K>()
        var model: [K: UInt64] = [:]
        var kept: [(_IdentityIndex<K>, [K: UInt64])] = []
        let probes = (0 ..< keySpace).map(key)
        for step in 0 ..< steps {
            let k = key(Int.random(in: 0 ..< keySpace, using: &rng))
            switch Int.random(in: 0 ..< 20, using: &rng) {
            case 0 ..< 11:
                let label = UInt64.random(in: 0 ..< 1 << 40, using: &rng)
                let old = index.setLabel(label, for: k)
                guard old == model.updateValue(label, forKey: k) else {
                    Issue.record("seed \(seed) step \(step): setLabel returned \(String(describing: old))")
                    return
                }
            case 11 ..< 19:
                let old = index.removeLabel(for: k)
                guard old == model.removeValue(forKey: k) else {
                    Issue.record("seed \(seed) step \(step): removeLabel returned \(String(describing: old))")
                    return
                }
            default:
                // NB: a version kept alive: later writes must copy the
                // nodes it shares.
                kept.append((index, model))
                if kept.count > 6 { kept.removeFirst() }
            }
            if step % 97 == 0 || step == steps - 1 {
                guard check(index, model, probes, "seed \(seed) step \(step)") else { return }
                for (k, version) in kept.enumerated() {
                    guard check(version.0, version.1, probes, "seed \(seed) step \(step), kept version \(k)") else { return }
                }
            }
        }
        // The bulk build of the final entries reads as the model too.
        let entries = Array(model)
        var duplicate: K? = nil
        guard let built = _IdentityIndex<K>.build(count: entries.count, duplicate: &duplicate, entry: {
            _IdentityEntry(id: entries[$0].key, label: entries[$0].value)
        }) else {
            Issue.record("seed \(seed): the bulk build found a duplicate \(String(describing: duplicate))")
            return
        }
        _ = check(built, model, probes, "seed \(seed): bulk build")
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func randomWritesMatchADictionary(seed: UInt64) {
        run(key: { $0 }, keySpace: 3_000, steps: 9_000, fallbackSeed: seed)
    }

    @Test func idsSharingFullHashes() {
        run(key: { ClusteredKey(x: $0) }, keySpace: 600, steps: 6_000, fallbackSeed: 11)
        run(key: { CollidingKey(x: $0) }, keySpace: 400, steps: 3_000, fallbackSeed: 12)
    }

    /// Every id inserted in a random order, a third relabelled, then every
    /// id removed in another order, twice, with versions kept all along:
    /// splits and merges both happen (counted), and every kept version
    /// still reads as it was.
    private func growAndShrink<K: Hashable>(key: (Int) -> K, count: Int, seed: UInt64) {
        var rng = SeededGenerator.fromEnvironment(fallback: seed)
        let seed = rng.seed
        var index = _IdentityIndex<K>()
        var model: [K: UInt64] = [:]
        var kept: [(_IdentityIndex<K>, [K: UInt64])] = []
        let probes = (0 ..< count).map(key)
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
            for x in (0 ..< count).shuffled(using: &rng) {
                let before = branchCount(index)
                let label = UInt64.random(in: 0 ..< 1 << 40, using: &rng)
                index.setLabel(label, for: key(x))
                model[key(x)] = label
                if branchCount(index) > before { splits += 1 }
                guard keepAndCheck("round \(round), insert \(x)") else { return }
            }
            for x in (0 ..< count).shuffled(using: &rng).prefix(count / 3) {
                let label = UInt64.random(in: 0 ..< 1 << 40, using: &rng)
                index.setLabel(label, for: key(x))
                model[key(x)] = label
                guard keepAndCheck("round \(round), relabel \(x)") else { return }
            }
            for x in (0 ..< count).shuffled(using: &rng) {
                let before = branchCount(index)
                guard index.removeLabel(for: key(x)) == model.removeValue(forKey: key(x)) else {
                    Issue.record("seed \(seed) round \(round): removeLabel(for: \(x)) disagrees with the model")
                    return
                }
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
        growAndShrink(key: { $0 }, count: 2_500, seed: 21)
        // Groups of 100 ids sharing a full hash: leaves past the last level.
        growAndShrink(key: { ClusteredKey(x: $0) }, count: 700, seed: 22)
        // Hashes that differ only in their top 4 bits (the sign bit too):
        // the last branch level.
        growAndShrink(key: { FixedHashKey(x: $0, hash: Int(bitPattern: UInt($0 % 16) << 60)) }, count: 16 * 90, seed: 23)
    }

    @Test func bulkBuildsOfEverySizeAroundALeaf() {
        for size in [0, 1, 2, 63, 64, 65, 66, 1_000, 33_000] {
            let entries = (0 ..< size).map { _IdentityEntry(id: $0 &* 7_919, label: UInt64($0)) }
            var duplicate: Int? = nil
            guard let built = _IdentityIndex<Int>.build(count: size, duplicate: &duplicate, entry: { entries[$0] }) else {
                Issue.record("size \(size): a duplicate \(String(describing: duplicate))")
                continue
            }
            var model: [Int: UInt64] = [:]
            for entry in entries { model[entry.id] = entry.label }
            let probes = entries.map(\.id) + [-1]
            guard check(built, model, probes, "size \(size): the build") else { continue }
            // A copy written down to half: the built version is untouched.
            var copy = built
            for entry in entries.prefix(40) { copy.setLabel(999, for: entry.id) }
            for entry in entries.suffix(size / 2) { copy.removeLabel(for: entry.id) }
            _ = check(built, model, probes, "size \(size): the build after writes of a copy")
        }
    }

    @Test func bulkBuildFindsADuplicateAmongManyIds() {
        for size in [2, 65, 5_000] {
            var rng = SeededGenerator(seed: UInt64(size))
            var ids = Array(0 ..< size)
            let twin = ids[Int.random(in: 0 ..< size, using: &rng)]
            ids.insert(twin, at: Int.random(in: 0 ... size, using: &rng))
            var duplicate: Int? = nil
            let index = _IdentityIndex<Int>.build(count: ids.count, duplicate: &duplicate) {
                _IdentityEntry(id: ids[$0], label: UInt64($0))
            }
            #expect(index == nil)
            #expect(duplicate == twin)
        }
        var duplicate: ClusteredKey? = nil
        let clustered = (0 ..< 300).map { ClusteredKey(x: $0) } + [ClusteredKey(x: 150)]
        #expect(_IdentityIndex<ClusteredKey>.build(count: clustered.count, duplicate: &duplicate) {
            _IdentityEntry(id: clustered[$0], label: 0)
        } == nil)
        #expect(duplicate == ClusteredKey(x: 150))
    }

    /// The bulk build's duplicate check against a `Set`, on seeded random
    /// ids, some of them repeated: plain `Int`s, ids whose hashes come in
    /// groups of four (equal hashes, different ids, in one leaf's slot
    /// chain) and groups of a hundred sharing a hash (leaves past the last
    /// level, compared pairwise).
    @Test(arguments: [UInt64(31), 32, 33])
    func bulkBuildFindsADuplicateExactlyWhenASetDoes(seed: UInt64) {
        var rng = SeededGenerator.fromEnvironment(fallback: seed)
        let seed = rng.seed
        func check<K: Hashable>(_ ids: [K], _ context: String) {
            var duplicate: K? = nil
            let built = _IdentityIndex<K>.build(count: ids.count, duplicate: &duplicate) {
                _IdentityEntry(id: ids[$0], label: UInt64($0))
            }
            let repeated = Set(ids).count != ids.count
            #expect((built == nil) == repeated, "seed \(seed) \(context): built \(built != nil), a repeat \(repeated)")
            if let duplicate {
                #expect(ids.filter { $0 == duplicate }.count >= 2, "seed \(seed) \(context): \(duplicate) is not repeated")
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
        var index = _IdentityIndex<Int>()
        for k in 0 ..< 20_000 { index.setLabel(UInt64(k), for: k) }
        let before = index
        index.setLabel(7, for: 19_999)
        #expect(before.label(for: 19_999) == 19_999)
        #expect(index.label(for: 19_999) == 7)
        // NB: every other branch of the root is still shared.
        let old = before._root as! _IdentityBranch<Int>
        let new = index._root as! _IdentityBranch<Int>
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
