@testable import FastStore
import Foundation
import Testing

/// White-box: what making and applying a patch encodes. Shared rows must
/// never be encoded (their node references are skipped by identity and
/// stamp), whatever the list's length.
/// Serialized: the tests share the counters.
@Suite("StatePatch cost", .serialized)
struct StatePatchCostTests {
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func increment() { lock.lock(); value += 1; lock.unlock() }
        var count: Int { lock.lock(); defer { lock.unlock() }; return value }
        func reset() { lock.lock(); value = 0; lock.unlock() }
    }

    static let encodes = Counter()

    /// A row that counts its encodings.
    struct CountingRow: Codable, Equatable, Identifiable {
        var id: Int
        var score: Int

        private enum CodingKeys: String, CodingKey { case id, score }

        init(id: Int, score: Int) { self.id = id; self.score = score }

        func encode(to encoder: any Encoder) throws {
            StatePatchCostTests.encodes.increment()
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(score, forKey: .score)
        }
    }

    static let headerEncodes = Counter()

    /// A plain field of the board that counts its encodings: one per walk
    /// from the root.
    struct Header: Codable, Equatable {
        var title: String

        init(title: String) { self.title = title }
        init(from decoder: any Decoder) throws { title = try String(from: decoder) }

        func encode(to encoder: any Encoder) throws {
            StatePatchCostTests.headerEncodes.increment()
            try title.encode(to: encoder)
        }
    }

    struct Board: Codable, Equatable {
        var title: String
        var header = Header(title: "h")
        var rows: IdentifiedList<Versioned<CountingRow>>
        var cells: VersionedList<Versioned<CountingRow>>
        var byName: VersionedDictionary<String, Versioned<CountingRow>>
    }

    /// 100,000 rows in an `IdentifiedList` and a `VersionedList`, 1,000 in a
    /// dictionary, every score 0.
    static func board() -> Versioned<Board> {
        let rows = (0 ..< 100_000).map { Versioned(CountingRow(id: $0, score: 0)) }
        var names = VersionedDictionary<String, Versioned<CountingRow>>()
        for i in 0 ..< 1_000 { names["n\(i)"] = Versioned(CountingRow(id: i, score: 0)) }
        return Versioned(Board(title: "t", rows: IdentifiedList(rows), cells: VersionedList(rows), byName: names))
    }

    @Test("one row changed among 100,000: two rows encoded to diff, a handful to apply")
    func sharedRowsAreNeverEncoded() throws {
        let a = Self.board()
        var b = a
        b.rows[id: 77_777]?.score = 1
        b.cells[12_345].score = 2
        b.byName["n5"]?.score = 3

        Self.encodes.reset()
        let patch = try StatePatch(from: a, to: b)
        let diffEncodes = Self.encodes.count
        #expect(patch.operations.count == 3, "\(patch)")
        #expect(diffEncodes == 6, "encoded \(diffEncodes) rows to diff")  // old and new of each changed row

        Self.encodes.reset()
        let applied = try patch.apply(to: a)
        let applyEncodes = Self.encodes.count
        #expect(applyEncodes <= 12, "encoded \(applyEncodes) rows to apply")
        #expect(applied == b)
    }

    @Test("100 patches composed, 10 writes each to 10 rows of each list: the root walked once, each row rebuilt once")
    func composedPatchesWalkOnce() throws {
        let a = Self.board()
        var state = a
        var patches: [StatePatch<Versioned<Board>>] = []
        for k in 0 ..< 100 {
            let before = state
            let row = (k % 10) * 1_000
            state.rows[id: row]?.score += 1
            state.cells[row + 1].score += 1
            state.byName["n\(k % 10)"]?.score += 1
            patches.append(try StatePatch(from: before, to: state))
        }
        let composed = StatePatch.compose(patches)
        #expect(composed.operations.count == 300)

        Self.headerEncodes.reset()
        Self.encodes.reset()
        let applied = try composed.apply(to: a)
        #expect(applied == state)
        #expect(Self.headerEncodes.count == 1, "the root walked \(Self.headerEncodes.count) times")
        // NB: each of the 30 rows written is encoded once to be rebuilt
        // and once to check its old value.
        #expect(Self.encodes.count <= 60, "encoded \(Self.encodes.count) rows")

        Self.headerEncodes.reset()
        #expect(try composed.inverted().apply(to: state) == a)
        #expect(Self.headerEncodes.count == 1, "the root walked \(Self.headerEncodes.count) times back")
    }
}
