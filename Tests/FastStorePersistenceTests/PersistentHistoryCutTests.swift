import FastStore
import FastStorePersistence
import FastStorePersistenceTestSupport
import Foundation
import Testing

/// A history saved without some of its entries says so: it went without a
/// word before (this test failed).
@Suite struct PersistentHistoryCutTests {
    @Test func aHistorySavedCutIsReportedToOnSaveFailureNamingTheEntriesKept() async throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        let log = ReportLog()
        // NB: grouped writes: the non-finite state is replaced before it is
        // written, so no failed write reports it.
        let (file, store, history) = try CounterModel.open(path, options: .init(durability: .grouped(.seconds(3600)), onSaveFailure: { log.append($0) }))
        store.dispatch(.inc); store.waitUntilIdle()                // 1
        store.dispatch(.set(.infinity)); store.waitUntilIdle()     // 2: its patch does not encode
        store.dispatch(.set(1)); store.waitUntilIdle()             // 3
        store.dispatch(.inc); store.waitUntilIdle()                // 4
        #expect(try await file.saveHistory())
        #expect(history.indices == 0 ... 4)
        let cuts = log.values.compactMap { report -> ClosedRange<Int>? in
            if case .historyCut(_, let kept, _)? = report { return kept }
            return nil
        }
        #expect(cuts == [3 ... 4], "reports: \(log.values)")
        try file.close()
        // What was reported is what is restored.
        let reopened = try PersistentState(path: path, initial: CounterModel.State())
        let restoredStore = Store(state: reopened.state, reducer: CounterModel.reduce)
        let restored = try reopened.history(of: restoredStore)
        #expect(restored.indices == 3 ... 4)
        try reopened.close()
    }
}
