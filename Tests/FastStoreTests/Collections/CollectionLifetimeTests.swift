@testable import FastStore
import FastStoreTestSupport
import Testing

/// Counts live instances, to catch leaks and over-releases in the unsafe
/// paths (iterator, cursors, temporary buffers).
final class Tracked: Hashable, @unchecked Sendable {
    /// The number of live instances.
    final class Counter: @unchecked Sendable {
        private let lock = _Lock()
        private var count = 0
        func add(_ delta: Int) { lock.withLock { count += delta } }
        func load() -> Int { lock.withLock { count } }
    }

    static let live = Counter()
    let value: Int
    init(_ value: Int) {
        self.value = value
        Self.live.add(1)
    }
    deinit { Self.live.add(-1) }
    static func == (lhs: Tracked, rhs: Tracked) -> Bool { lhs.value == rhs.value }
    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

@Suite("Collection lifetimes", .serialized)
struct CollectionLifetimeTests {
    @Test func listOfObjectsReleasesEverything() {
        let before = Tracked.live.load()
        do {
            var rng = SeededGenerator.fromEnvironment(fallback: 0x11FE)
            var list = VersionedList((0 ..< 5000).map { Tracked($0) })
            var versions = [list]
            for step in 0 ..< 400 {
                let n = list.count
                switch Int.random(in: 0 ..< 5, using: &rng) {
                case 0 where n > 0: list[Int.random(in: 0 ..< n, using: &rng)] = Tracked(-step)
                case 1: list.insert(Tracked(step), at: Int.random(in: 0 ... n, using: &rng))
                case 2 where n > 0: list.remove(at: Int.random(in: 0 ..< n, using: &rng))
                case 3: list.replaceSubrange(0 ..< min(n, 10), with: (0 ..< 3).map { Tracked($0) })
                default: list.append(Tracked(step))
                }
                if step % 50 == 0 { versions.append(list) }
            }
            var sum = 0
            for x in list { sum &+= x.value }
            list.forEach { sum &-= $0.value }
            #expect(sum == 0)
            #expect(Array(list).count == list.count)
            for old in versions {
                _ = list.difference(from: old)
                _ = list == old
            }
            list.sort { $0.value < $1.value }
            #expect(zip(list, list.dropFirst()).allSatisfy { $0.value <= $1.value })
        }
        #expect(Tracked.live.load() == before, "every element released exactly once")
    }

    @Test func dictionaryAndRowsReleaseEverything() {
        struct Item: Identifiable { var id: Int; var payload: Tracked }
        let before = Tracked.live.load()
        do {
            var dict = VersionedDictionary(uniqueKeysWithValues: (0 ..< 2000).map { ($0, Tracked($0)) })
            let oldDict = dict
            for k in stride(from: 0, to: 2000, by: 7) { dict[k] = k % 2 == 0 ? nil : Tracked(-k) }
            _ = dict.difference(from: oldDict)
            var rows = IdentifiedList((0 ..< 2000).map { Item(id: $0, payload: Tracked($0)) })
            let oldRows = rows
            for k in stride(from: 0, to: 2000, by: 11) { rows.remove(id: k) }
            for k in 0 ..< 300 { rows.insert(Item(id: -1 - k, payload: Tracked(k)), at: 1000) }
            _ = rows.difference(from: oldRows)
            #expect(rows.count == 2000 - 182 + 300)
        }
        #expect(Tracked.live.load() == before, "every value released exactly once")
    }
}
