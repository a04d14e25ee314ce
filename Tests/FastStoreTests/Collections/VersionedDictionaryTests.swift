@testable import FastStore
import FastStoreTestSupport
import Foundation
import Testing

/// A key whose hash takes only a few values, to force full-hash collisions.
struct CollidingKey: Hashable, Codable, Sendable, CustomStringConvertible {
    var x: Int
    func hash(into hasher: inout Hasher) { hasher.combine(x % 5) }
    var description: String { "k\(x)" }
}

@Suite("VersionedDictionary")
struct VersionedDictionaryTests {
    /// Model: the values plus a write number per key, for the naive diff.
    struct Model<K: Hashable> {
        var values: [K: Int] = [:]
        var written: [K: Int] = [:]

        func naiveDifference(from older: Model) -> (removed: Set<K>, inserted: Set<K>, updated: Set<K>) {
            let removed = Set(older.values.keys.filter { values[$0] == nil })
            let inserted = Set(values.keys.filter { older.values[$0] == nil })
            let updated = Set(values.keys.filter { older.written[$0] != nil && older.written[$0] != written[$0] })
            return (removed, inserted, updated)
        }
    }

    private func run<K: Hashable>(key: (Int) -> K, keySpace: Int, fallbackSeed: UInt64) {
        var rng = SeededGenerator.fromEnvironment(fallback: fallbackSeed)
        let seed = rng.seed
        var dict = VersionedDictionary<K, Int>()
        var model = Model<K>()
        var writeNumber = 0
        var versions: [(VersionedDictionary<K, Int>, Model<K>)] = [(dict, model)]
        for step in 0 ..< 1500 {
            let k = key(Int.random(in: 0 ..< keySpace, using: &rng))
            switch Int.random(in: 0 ..< 10, using: &rng) {
            case 0 ..< 5:
                let v = Int.random(in: 0 ..< 100, using: &rng)
                writeNumber += 1
                let old = dict.updateValue(v, forKey: k)
                #expect(old == model.values[k], "seed \(seed) step \(step): updateValue")
                model.values[k] = v
                model.written[k] = writeNumber
            case 5 ..< 8:
                let old = dict.removeValue(forKey: k)
                #expect(old == model.values[k], "seed \(seed) step \(step): removeValue")
                model.values[k] = nil
                model.written[k] = nil
            case 8:
                let v = Int.random(in: 0 ..< 100, using: &rng)
                writeNumber += 1
                dict[k] = v
                model.values[k] = v
                model.written[k] = writeNumber
            default:
                if Int.random(in: 0 ..< 10, using: &rng) == 0 {
                    (dict, model) = versions[Int.random(in: 0 ..< versions.count, using: &rng)]
                }
            }
            #if FASTSTORE_INTERNAL_CHECKS
            dict._invariantCheck()
            #endif
            #expect(dict.count == model.values.count, "seed \(seed) step \(step): count")
            #expect(dict[k] == model.values[k], "seed \(seed) step \(step): lookup")
            if step % 25 == 0 {
                #expect(Dictionary(uniqueKeysWithValues: dict.map { ($0.key, $0.value) }) == model.values,
                        "seed \(seed) step \(step): contents")
                versions.append((dict, model))
                if versions.count > 10 { versions.remove(at: Int.random(in: 0 ..< versions.count, using: &rng)) }
                // Hidden copies unchanged, and the diff against each matches the naive diff.
                for (old, oldModel) in versions {
                    #expect(Dictionary(uniqueKeysWithValues: old.map { ($0.key, $0.value) }) == oldModel.values,
                            "seed \(seed) step \(step): a hidden copy changed")
                    let changes = dict.difference(from: old)
                    let naive = model.naiveDifference(from: oldModel)
                    #expect(Set(changes.removed) == naive.removed && changes.removed.count == naive.removed.count,
                            "seed \(seed) step \(step): removed")
                    #expect(Set(changes.inserted) == naive.inserted && changes.inserted.count == naive.inserted.count,
                            "seed \(seed) step \(step): inserted")
                    #expect(Set(changes.updated) == naive.updated && changes.updated.count == naive.updated.count,
                            "seed \(seed) step \(step): updated")
                    #expect((dict == old) == (model.values == oldModel.values), "seed \(seed) step \(step): ==")
                }
            }
        }
    }

    @Test func randomOperationsMatchDictionary() {
        run(key: { $0 }, keySpace: 3000, fallbackSeed: 0xD1C7)
    }

    @Test func collidingKeys() {
        run(key: { CollidingKey(x: $0) }, keySpace: 60, fallbackSeed: 0xC011)
    }

    @Test func conformances() throws {
        let dict: VersionedDictionary = ["a": 1, "b": 2]
        #expect(dict["a"] == 1)
        #expect(dict["z"] == nil)
        #expect(dict["z", default: 9] == 9)
        #expect(dict.count == 2)
        #expect(dict.description == "[a: 1, b: 2]" || dict.description == "[b: 2, a: 1]")
        #expect(VersionedDictionary<String, Int>().description == "[:]")
        let data = try JSONEncoder().encode(dict)
        let decoded = try JSONDecoder().decode(VersionedDictionary<String, Int>.self, from: data)
        #expect(decoded == dict)
        #expect(decoded.hashValue == dict.hashValue)
        let unrelated: VersionedDictionary = ["a": 1, "b": 3, "c": 4]
        let changes = unrelated.difference(from: dict)
        #expect(changes.updated == ["b"])
        #expect(changes.inserted == ["c"])
        var copy = dict
        #expect(copy.removeValue(forKey: "zz") == nil)
        #expect(copy.version == dict.version, "removing an absent key writes nothing")
        copy.removeAll()
        #expect(copy.isEmpty && copy.nodeID == dict.nodeID)
    }

    @Test func filterAndMapValues() {
        let dict = VersionedDictionary(uniqueKeysWithValues: (0 ..< 1000).map { ($0, $0) })
        let even = dict.filter { $0.value % 2 == 0 }
        #expect(even.count == 500)
        #expect(even.nodeID == dict.nodeID)
        #expect(Set(even.difference(from: dict).removed) == Set((0 ..< 1000).filter { $0 % 2 == 1 }))
        #expect(dict.filter { _ in true }.version == dict.version, "nothing dropped, nothing written")
        let strings = dict.mapValues(String.init)
        #expect(strings[7] == "7")
        #expect(strings.count == 1000)
        #expect(strings.nodeID != dict.nodeID)
        #if FASTSTORE_INTERNAL_CHECKS
        even._invariantCheck()
        strings._invariantCheck()
        #endif
    }

    @Test func tracking() {
        var dict: VersionedDictionary = [1: "a", 2: "b"]
        let recorder = _ReadRecorder()
        recorder.record {
            _ = dict[1]
            _ = dict.count
        }
        #expect(recorder.dependencies == [
            _Dependency(node: dict.nodeID, kind: .element(_ElementKey(1))),
            _Dependency(node: dict.nodeID, kind: .whole),
        ])
        let journal = _WriteJournal()
        journal.record {
            dict[3] = "c"
            dict[1] = nil
            dict.updateValue("B", forKey: 2)
            dict[99] = nil  // absent: no write
        }
        #expect(journal.writes.map(\.kind) == [
            .element(_ElementKey(3)), .element(_ElementKey(1)), .element(_ElementKey(2)),
        ])
        #expect(journal.link(producing: dict._trackingIdentity.version)?.node == dict.nodeID)
    }

    @Test func sharedUpdateCopiesAPath() {
        let big = VersionedDictionary(uniqueKeysWithValues: (0 ..< 100_000).map { ($0, $0) })
        var copy = big
        copy[500] = -1
        #expect(big[500] == 500)
        #expect(copy.difference(from: big) == VersionedDictionaryChanges(updated: [500]))
        #expect(copy != big)
        copy[500] = 500
        #expect(copy == big)
    }
}
