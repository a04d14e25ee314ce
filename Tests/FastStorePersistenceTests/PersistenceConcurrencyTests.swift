import FastStore
import FastStorePersistence
import FastStorePersistenceTestSupport
import Foundation
import Testing

/// The saver under threads (run under ThreadSanitizer in CI): four threads
/// dispatch while two others flush, and the file ends with the store's
/// final state.
@Suite struct PersistenceConcurrencyTests {
    @Test func dispatchesFromFourThreadsWhileOthersFlushAreAllSaved() async throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        let file = try PersistentState(path: path, options: .init(compactAfter: 25), initial: CrashModel.initial())
        let store = Store(state: file.state, reducer: CrashModel.reduce)
        try file.keepSaving(store)
        // Notes only: any interleaving of them is a valid sequence.
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    for i in 0..<200 { store.dispatch(.note("thread \(thread) note \(i)")) }
                }
            }
            for _ in 0..<2 {
                group.addTask {
                    for _ in 0..<20 { try? await file.flush() }
                }
            }
        }
        try await file.flush()
        #expect(file.saveFailure == nil)
        try file.close()
        let reopened = try PersistentState(path: path, initial: CrashModel.initial())
        #expect(reopened.state.step == 800)
        #expect(CrashModel.canonical(reopened.state) == CrashModel.canonical(store.state))
        try reopened.close()
    }
}
