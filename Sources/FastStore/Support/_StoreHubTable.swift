/// The live hubs of one kind (the scope hubs, the wake-up hubs), by store
/// and notification thread: one home for the rule both follow.
///
/// Entries hold the store and the hub weakly: a hub is owned by its
/// subscriptions (a wake-up hub by its store's subscriber entry too, until
/// its last connection goes: ``remove(_:hub:when:)``), and removes its
/// entry when it goes (``forget(_:)``). An
/// entry must name the very store asked for: a hub kept alive by a
/// subscription can outlive its store, and a new store can reuse the old
/// one's address.
@usableFromInline
internal final class _StoreHubTable: @unchecked Sendable {
    // NB: `@unchecked Sendable`: `entries` is guarded by `lock`.

    /// The scope hubs (``_ScopeHub``).
    static let scopes = _StoreHubTable()
    /// The wake-up hubs of connected consumers (``_WakeUpHub``).
    @usableFromInline static let wakeUps = _StoreHubTable()

    struct Key: Hashable {
        let store: ObjectIdentifier
        let thread: NotificationThread
    }

    private struct Entry {
        weak var store: AnyObject?
        weak var hub: AnyObject?
    }

    private let lock = _Lock()
    private var entries: [Key: Entry] = [:]

    /// The live hub of `store` for `thread`, if any.
    ///
    /// - Complexity: O(1) expected.
    func existing(for store: AnyObject, on thread: NotificationThread) -> AnyObject? {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[Key(store: ObjectIdentifier(store), thread: thread)], entry.store === store else {
            return nil
        }
        return entry.hub
    }

    /// The live hub of `store` for `thread`, or the one `make` makes (and
    /// connects to the store), under the table's lock.
    ///
    /// Lock order: `make` takes the store's and the new hub's locks after
    /// the table's; nothing takes the table's lock while holding either (a
    /// hub's `deinit` runs after its subscription's release, not inside a
    /// store or consumer critical section).
    ///
    /// - Complexity: O(1) expected, plus `make` the first time.
    func hub(for store: AnyObject, on thread: NotificationThread, make: (Key) -> AnyObject) -> AnyObject {
        let key = Key(store: ObjectIdentifier(store), thread: thread)
        lock.lock()
        defer { lock.unlock() }
        if let entry = entries[key], entry.store === store, let hub = entry.hub { return hub }
        let hub = make(key)
        entries[key] = Entry(store: store, hub: hub)
        return hub
    }

    /// Removes the entry of `key` if it names `hub` and `shouldRemove`
    /// (called under the table's lock) says so. Returns what
    /// `shouldRemove` said (`false` when the entry names another hub).
    ///
    /// - Complexity: O(1) expected, plus `shouldRemove`.
    func remove(_ key: Key, hub: AnyObject, when shouldRemove: () -> Bool) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[key], entry.hub === hub, shouldRemove() else { return false }
        entries[key] = nil
        return true
    }

    /// Removes the entry of `key` if its hub is gone (not if a newer hub
    /// replaced it).
    func forget(_ key: Key) {
        lock.lock()
        if let entry = entries[key], entry.hub == nil { entries[key] = nil }
        lock.unlock()
    }
}
