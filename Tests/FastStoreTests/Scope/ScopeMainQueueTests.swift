import Dispatch
import FastStore
import Testing

/// Scope subscriptions delivered on the main queue: the store coalesces
/// drains, and the scope still sees only its own changes.
@Suite struct ScopeMainQueueTests {
    @MainActor
    @Test func aMainQueueScopeSubscriptionSeesItsRowsFinalState() async throws {
        let store = makeScopeApp(rows: 100)
        let row = store.scope(state: { $0.rows[id: 7] }, action: { ScopeAppAction.row(7, $0) })
        // NB: on Linux the test harness services the main queue from a thread
        // that is not the process's first thread: "main" is checked as "on
        // the main dispatch queue", which is what `.main` promises.
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        let seen = Shared<[(done: Bool, onMain: Bool)]>([])
        let subscription = row.subscribe(on: .main) { row in
            seen.mutate { $0.append((row?.done ?? false, DispatchQueue.getSpecific(key: key) == true)) }
        }
        await Task.detached {
            for i in 0..<101 {
                store.dispatch(.row(7, .toggle))
                store.dispatch(.row(8 + i % 10, .toggle))    // other rows
                store.dispatch(.increment)
            }
        }.value
        for _ in 0..<400 where seen.value.last?.done != true {
            try await Task.sleep(for: .milliseconds(5))
        }
        // Let any delivery still queued on the main queue run.
        try await Task.sleep(for: .milliseconds(50))
        let calls = seen.value
        #expect(calls.last?.done == true, "101 toggles end on true")
        #expect(calls.allSatisfy { $0.onMain }, "every call ran on the main queue")
        #expect(calls.count <= 101, "never more calls than changes of the row")
        withExtendedLifetime(subscription) {}
    }
}
