@_spi(Testing) import FastStore
import Foundation
import Testing

/// Scopes made, subscribed, dispatched through and released on several
/// threads while the root store drains (run under ThreadSanitizer with
/// `--filter Concurrency`).
@Suite struct ScopeConcurrencyTests {
    @Test func scopesOnManyThreadsSeeEveryChangeOfTheirRow() async {
        let store = makeScopeApp(rows: 64)
        let threads = 4
        let toggles = 300
        // One long-lived scope and subscription per thread's row.
        let lastSeen = (0..<threads).map { _ in Shared<Bool?>(nil) }
        let notifications = (0..<threads).map { _ in Shared(0) }
        let rows = (0..<threads).map { t in
            store.scope(state: { $0.rows[id: t * 8] }, action: { ScopeAppAction.row(t * 8, $0) })
        }
        let subscriptions = (0..<threads).map { t in
            rows[t].subscribe { row in
                lastSeen[t].value = row?.done
                notifications[t].mutate { $0 += 1 }
            }
        }
        onThreads(threads + 1) { t in
            if t == threads {
                for _ in 0..<2_000 { store.dispatch(.increment) }
                return
            }
            for i in 0..<toggles {
                rows[t].dispatch(.toggle)
                // Short-lived scopes of the same row, and of another, made
                // and released while the store drains.
                let transient = store.scope(state: { $0.rows[id: t * 8 + 1] }, action: { ScopeAppAction.row(t * 8 + 1, $0) })
                let token = transient.subscribe { _ in }
                if i % 3 == 0 { transient.dispatch(.rename("\(i)")) }
                _ = transient.state
                token.cancel()
            }
        }
        await store.flush()
        for t in 0..<threads {
            #expect(store.state.rows[id: t * 8]?.done == (toggles % 2 == 1))
            // The last notification carries the final row (none at all when
            // every batch toggled the row an even number of times).
            #expect((lastSeen[t].value ?? false) == store.state.rows[id: t * 8]?.done)
            #expect(notifications[t].value <= toggles)
        }
        #expect(store.state.counter == 2_000)
        // NB: inside the lifetime: the hub lives while a subscription does
        // (a release build may end `subscriptions` right after its last use).
        withExtendedLifetime(subscriptions) {
            #expect(store.subscriberCount == 1)
        }
    }

    @Test func hubsAreMadeOncePerStoreUnderContention() async {
        let store = makeScopeApp(rows: 16)
        let tokens = Shared<[StoreSubscription]>([])
        onThreads(4) { t in
            for i in 0..<200 {
                let scope = store.scope(state: { $0.rows[id: (t + i) % 16] }, action: { ScopeAppAction.row((t + i) % 16, $0) })
                let token = scope.subscribe { _ in }
                if i % 2 == 0 { tokens.mutate { $0.append(token) } }
                store.dispatch(.increment)
            }
        }
        await store.flush()
        #expect(store.subscriberCount == 1)
        tokens.value = []
        #expect(store.subscriberCount == 0)
    }
}
