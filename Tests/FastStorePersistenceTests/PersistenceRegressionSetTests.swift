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
}
