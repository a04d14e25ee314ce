@testable import FastStore
import Foundation
import Testing

/// White-box: what making and applying a patch encodes. Shared rows must
/// never be encoded (their node references are skipped by identity and
/// stamp), whatever the list's length.
@Suite("StatePatch cost")
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

    struct Board: Codable, Equatable {
        var title: String
        var rows: IdentifiedList<Versioned<CountingRow>>
        var cells: VersionedList<Versioned<CountingRow>>
        var byName: VersionedDictionary<String, Versioned<CountingRow>>
    }

    @Test("one row changed among 100,000: two rows encoded to diff, a handful to apply")
    func sharedRowsAreNeverEncoded() throws {
        let rows = (0 ..< 100_000).map { Versioned(CountingRow(id: $0, score: 0)) }
        var names = VersionedDictionary<String, Versioned<CountingRow>>()
        for i in 0 ..< 1_000 { names["n\(i)"] = Versioned(CountingRow(id: i, score: 0)) }
        let a = Versioned(Board(title: "t", rows: IdentifiedList(rows), cells: VersionedList(rows), byName: names))
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
}
