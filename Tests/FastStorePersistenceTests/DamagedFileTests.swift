import FastStore
import FastStorePersistence
import FastStorePersistenceTestSupport
import FastStoreTestSupport
import Foundation
import Testing

/// A state file truncated or overwritten at random offsets (seeded): opening
/// it either throws a ``PersistentStateError`` and leaves the bytes as they
/// were, or (the damage fell where nothing is read) opens to exactly the
/// state that was saved. Never a crash, never another state.
///
/// `FASTSTORE_DAMAGE_RUNS` sets the number of damaged copies (default 200),
/// `FASTSTORE_SEED` the seed.
@Suite struct DamagedFileTests {
    static var runs: Int { ProcessInfo.processInfo.environment["FASTSTORE_DAMAGE_RUNS"].flatMap(Int.init) ?? 200 }
    static var seed: UInt64 { ProcessInfo.processInfo.environment["FASTSTORE_SEED"].flatMap(UInt64.init) ?? 0xDA3A_6E00 }

    @Test func aDamagedFileIsRefusedOrReadWhole() throws {
        let folder = temporaryDirectory()
        let original = folder.appendingPathComponent("original.sqlite").path
        // A file with a snapshot and a log: compaction every 40 patches,
        // 250 batches each saved on its own.
        let actions = CrashModel.actions(seed: Self.seed, count: 250)
        let saved: Data
        do {
            let file = try PersistentState(path: original, options: .init(compactAfter: 40), initial: CrashModel.initial())
            let store = Store(state: file.state, reducer: CrashModel.reduce)
            try file.keepSaving(store)
            for action in actions {
                store.dispatch(action)
                try file.waitUntilSaved()
            }
            saved = CrashModel.canonical(store.state)
            try file.close()
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: original))
        var rng = SeededGenerator(seed: Self.seed)
        var refused = 0
        for run in 0..<Self.runs {
            var damaged = bytes
            let description: String
            let kind = rng.next() % 3
            if kind == 2 {
                // One byte turned into another digit or letter: inside a
                // saved JSON string or number this still decodes, as
                // another value, unless the checksum catches it.
                let offset = Int(rng.next() % UInt64(bytes.count))
                let printable = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
                var replacement = printable[Int(rng.next() % UInt64(printable.count))]
                if replacement == damaged[offset] { replacement = replacement == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0") }
                damaged[offset] = replacement
                description = "the byte at \(offset) turned into '\(Character(UnicodeScalar(replacement)))'"
            } else if kind == 1 {
                let length = Int(rng.next() % UInt64(bytes.count - 1)) + 1
                damaged = damaged.prefix(length)
                description = "truncated to \(length) of \(bytes.count) bytes"
            } else {
                let offset = Int(rng.next() % UInt64(bytes.count))
                let length = min(Int(rng.next() % 16) + 1, bytes.count - offset)
                for i in offset..<(offset + length) { damaged[i] = UInt8(truncatingIfNeeded: rng.next()) }
                description = "\(length) bytes overwritten at \(offset)"
            }
            let path = folder.appendingPathComponent("damaged\(run).sqlite").path
            try damaged.write(to: URL(fileURLWithPath: path))
            do {
                let file = try PersistentState(path: path, initial: CrashModel.initial())
                #expect(CrashModel.canonical(file.state) == saved, "run \(run), \(description): opened to another state")
                try file.close()
            } catch {
                refused += 1
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == damaged, "run \(run), \(description): refused (\(error)) but changed the file")
            }
        }
        #expect(refused > Self.runs / 4, "only \(refused) of \(Self.runs) damaged files were refused: the damage missed the file's contents")
    }
}
