import FastStore
@_spi(Testing) import FastStorePersistence
import FastStorePersistenceTestSupport
import FastStoreTestSupport
import Foundation
import Testing

struct RTagged: Codable, Equatable, Sendable { var tags: Set<Int> = Set(0 ..< 64) }
struct RTaggedV2: Codable, Equatable, Sendable { var tags: Set<Int>; var label = "" }

/// From a review of migrations: a state holding a `Set` could not be
/// reopened (its patches recorded the saved instance's order), nor migrated
/// with a log. Both failed with `patchDoesNotApply` before the fix.
@Suite struct PersistenceRegressionSetTests {
    /// A Set's patches are index/array based in the saved instance's order;
    /// the reopened snapshot decodes to another order.
    @Test func aSetStateReopens() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        do {
            let file = try PersistentState(path: path, initial: RTagged())
            let store = Store(state: file.state) { (s: inout RTagged, k: Int) in s.tags.insert(k) }
            try file.keepSaving(store)
            for k in 100 ... 102 { store.dispatch(k); try file.waitUntilSaved() }
            try file.close()
        }
        let reopened = try PersistentState(path: path, initial: RTagged())
        #expect(reopened.state.tags == Set(0 ..< 64).union(100 ... 102))
        try reopened.close()
    }

    /// The same through a migration whose old file has a non-empty log.
    @Test func migratingASetStateWithALog() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        do {
            let file = try PersistentState(path: path, options: .init(compactAfter: 1000), initial: RTagged())
            let store = Store(state: file.state) { (s: inout RTagged, k: Int) in s.tags.insert(k) }
            try file.keepSaving(store)
            for k in 100 ... 102 { store.dispatch(k); try file.waitUntilSaved() }
            try file.close()
        }
        let migration = PersistentState<RTaggedV2>.Migration.from(version: 1, RTagged.self) { RTaggedV2(tags: $0.tags) }
        let migrated = try PersistentState(path: path, options: .init(version: 2), migrations: [migration],
                                           initial: RTaggedV2(tags: []))
        #expect(migrated.state.tags == Set(0 ..< 64).union(100 ... 102))
        try migrated.close()
    }

    /// From a second review: a Set changed without changing size, and a
    /// dictionary keyed by a struct, were diffed by position; the reopened
    /// file was refused with `patchDoesNotApply` (or worse, read wrong).
    @Test func sameSizeSetAndStructKeyedDictionaryReopen() throws {
        struct Key: Codable, Hashable, Sendable { var v: Int }
        struct Both: Codable, Equatable, Sendable {
            var tags: Set<Int> = Set(0 ..< 64)
            var d: [Key: Int] = Dictionary(uniqueKeysWithValues: (0 ..< 64).map { (Key(v: $0), 1) })
        }
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        var expected = Both()
        do {
            let file = try PersistentState(path: path, initial: Both())
            let store = Store(state: file.state) { (s: inout Both, k: Int) in
                s.tags.remove(k); s.tags.insert(k + 1000); s.d[Key(v: k)] = 5
            }
            try file.keepSaving(store)
            for k in 0 ..< 3 {
                store.dispatch(k)
                expected.tags.remove(k); expected.tags.insert(k + 1000); expected.d[Key(v: k)] = 5
                try file.waitUntilSaved()
            }
            try file.close()
        }
        let reopened = try PersistentState(path: path, initial: Both())
        #expect(reopened.state == expected)
        try reopened.close()
    }
}
