import FastStore
import FastStorePersistence
import FastStorePersistenceTestSupport
import Foundation
import Testing

/// How long saving lasts: as long as the saved store, unless `close()` is
/// called. Each test failed before its fix.
@Suite struct PersistenceLifetimeTests {
    /// The app keeps the store and lets go of its `PersistentState`: the
    /// store's batches are still saved (they were dropped silently).
    @Test func aStoreIsStillSavedAfterItsPersistentStateIsLetGo() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        var store: Store<S, CrashModel.Action>?
        do {
            let file = try PersistentState(path: path, initial: CrashModel.initial())
            store = Store(state: file.state, reducer: CrashModel.reduce)
            try file.keepSaving(store!)
        }
        for action in CrashModel.actions(seed: 3, count: 5) { store!.dispatch(action) }
        store!.waitUntilIdle()
        // Letting go of the store ends the saving: what it published is
        // written, and the file released.
        store = nil
        let reopened = try PersistentState(path: path, initial: CrashModel.initial())
        #expect(reopened.state.step == 5, "the file holds \(reopened.state.step) of the 5 batches")
        try reopened.close()
    }

    /// A `PersistentState` that saves no store ends when the app lets go of
    /// it: its file is released.
    @Test func aPersistentStateSavingNoStoreReleasesItsFileWhenLetGo() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        do { _ = try PersistentState(path: path, initial: CrashModel.initial()) }
        let reopened = try PersistentState(path: path, initial: CrashModel.initial())
        try reopened.close()
    }
}
