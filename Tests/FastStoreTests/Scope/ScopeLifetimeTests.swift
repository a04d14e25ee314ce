@testable import FastStore
import Testing

/// What a scope keeps alive, and that a released scope costs nothing.
@Suite struct ScopeLifetimeTests {
    @Test func aReleasedScopeLeavesNothingRegistered() {
        let store = makeScopeApp(rows: 10)
        weak var weakScope: ScopedStore<ScopeRow?, ScopeRowAction>?
        var calls = 0
        do {
            let scope = store.scope(state: { calls += 1; return $0.rows[id: 1] }, action: { ScopeAppAction.row(1, $0) })
            weakScope = scope
            let subscription = scope.subscribe { _ in }
            _ = scope.state                       // also subscribes it for Observation
            scope.dispatch(.toggle)
            #expect(store.subscriberCount == 1)
            #expect(_StoreHubTable.scopes.hasHub(for: store))
            withExtendedLifetime(subscription) {}
        }
        #expect(weakScope == nil)
        #expect(store.subscriberCount == 0)
        #expect(!_StoreHubTable.scopes.hasHub(for: store))
        let before = calls
        store.dispatch(.row(1, .toggle))
        #expect(calls == before)                  // nothing of it runs any more
    }

    @Test func aScopeKeepsItsRootStoreAliveAndNoLonger() {
        weak var weakStore: Store<ScopeApp, ScopeAppAction>?
        var scope: ScopedStore<ScopeRow?, ScopeRowAction>?
        var child: ScopedStore<String?, ScopeRowAction>?
        do {
            let store = makeScopeApp(rows: 10)
            weakStore = store
            scope = store.scope(state: { $0.rows[id: 2] }, action: { ScopeAppAction.row(2, $0) })
            child = scope?.scope(state: { $0?.title }, action: { $0 })
        }
        #expect(weakStore != nil)                 // the scopes dispatch to it
        child?.dispatch(.rename("kept"))
        #expect(weakStore?.state.rows[id: 2]?.title == "kept")
        scope = nil
        #expect(weakStore != nil)                 // a scope of a scope holds the root
        child = nil
        #expect(weakStore == nil)
    }

    @Test func aSubscriptionTokenDoesNotKeepTheRootStoreAlive() {
        weak var weakStore: Store<ScopeApp, ScopeAppAction>?
        var token: StoreSubscription?
        var notified = 0
        do {
            let store = makeScopeApp(rows: 10)
            weakStore = store
            let scope = store.scope(state: \.settings, action: ScopeAppAction.settings)
            token = scope.subscribe { _ in notified += 1 }
            scope.dispatch(.setTheme("dark"))
            #expect(notified == 1)
        }
        #expect(weakStore == nil)
        token?.cancel()
        token = nil
    }

    @Test func cancellingInsideTheCallbackIsSafe() {
        let store = makeScopeApp(rows: 10)
        let scope = store.scope(state: \.settings, action: ScopeAppAction.settings)
        var token: StoreSubscription?
        var calls = 0
        token = scope.subscribe { _ in
            calls += 1
            token?.cancel()
            token = nil
        }
        scope.dispatch(.setTheme("a"))
        scope.dispatch(.setTheme("b"))
        #expect(calls == 1)
        #expect(store.subscriberCount == 0)
    }

    @Test func subscribingFromACallbackStartsFromTheCurrentState() {
        let store = makeScopeApp(rows: 10)
        let settings = store.scope(state: \.settings, action: ScopeAppAction.settings)
        let row = store.scope(state: { $0.rows[id: 5] }, action: { ScopeAppAction.row(5, $0) })
        var rowTitles: [String?] = []
        var inner: StoreSubscription?
        let outer = settings.subscribe { _ in
            if inner == nil { inner = row.subscribe { rowTitles.append($0?.title) } }
        }
        settings.dispatch(.setTheme("dark"))      // subscribes `row` during a notification
        #expect(rowTitles.isEmpty)
        store.dispatch(.increment)
        #expect(rowTitles.isEmpty)
        row.dispatch(.rename("five"))
        #expect(rowTitles == ["five"])
        withExtendedLifetime((outer, inner)) {}
    }
}

extension _StoreHubTable {
    /// Whether a live hub serves `store` (test hook).
    func hasHub<Root, Action>(for store: Store<Root, Action>) -> Bool {
        [NotificationThread.drainThread, .main].contains { thread in existing(for: store, on: thread) != nil }
    }
}
