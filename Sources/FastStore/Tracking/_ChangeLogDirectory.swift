/// Where a watcher handed a state finds the change log of the store that
/// made it: every store's ``_ChangeLog``, filed under the root node its
/// states carry.
///
/// Two stores may file under one node (both started from one state value,
/// whose root node their copies keep): the lookups try each. A log stays
/// filed until its owner (a store, a simulated store) goes away and
/// unfiles it (``_ChangeLog/unfile()``); the watchers that found it may keep
/// it longer.
// NB: filed strongly, not weakly: a weak reference moves an object's
// reference counts to a side table, and every retain and release of the
// log (a consume takes one) would then take the runtime's slow path.
@usableFromInline
internal final class _ChangeLogDirectory: @unchecked Sendable {
    // NB: `@unchecked Sendable`: `logs` is guarded by `lock`.
    @usableFromInline static let shared = _ChangeLogDirectory()

    @usableFromInline let lock = _Lock()
    @exclusivity(unchecked) @usableFromInline var logs: [NodeID: [_ChangeLog]] = [:]

    @usableFromInline init() {}

    /// Files `log` under `node`, and no longer under `previous`.
    ///
    /// - Complexity: O(logs filed under either node), amortized.
    @usableFromInline
    func file(_ log: _ChangeLog, under node: NodeID, leaving previous: NodeID?) {
        lock.lock()
        defer { lock.unlock() }
        if let previous { _remove(log, from: previous) }
        logs[node, default: []].append(log)
    }

    /// Forgets `log`, filed under `node`.
    ///
    /// - Complexity: O(logs filed under `node`).
    @usableFromInline
    func remove(_ log: _ChangeLog, from node: NodeID) {
        lock.lock()
        defer { lock.unlock() }
        _remove(log, from: node)
    }

    /// Must hold the lock.
    @usableFromInline
    func _remove(_ log: _ChangeLog, from node: NodeID) {
        guard var filed = logs[node] else { return }
        filed.removeAll { $0 === log }
        logs[node] = filed.isEmpty ? nil : filed
    }

    /// The logs filed under `node`, newest first.
    ///
    /// - Complexity: O(logs filed under `node`): usually one.
    @usableFromInline
    func logs(under node: NodeID) -> [_ChangeLog] {
        lock.lock()
        defer { lock.unlock() }
        guard let filed = logs[node] else { return [] }
        return filed.reversed()
    }
}

extension _ChangeLog {
    /// The drains from `old` to `new` (see ``spans(from:to:into:)``), from
    /// `cached` when it holds them, else from a log filed under `new`'s root
    /// node, which becomes `cached`.
    ///
    /// - Complexity: that of ``spans(from:to:into:)`` on `cached` when it
    ///   holds the step (a watcher's usual case); else a directory lookup
    ///   too.
    @inlinable
    static func spans(
        from old: _RootVersion, to new: _RootVersion, into spans: inout [_DrainChanges], cached: inout _ChangeLog?
    ) -> Bool {
        if let log = cached, log.spans(from: old, to: new, into: &spans) { return true }
        guard old.node == new.node, old.version < new.version else { return false }
        for log in _ChangeLogDirectory.shared.logs(under: new.node) where log !== cached {
            if log.spans(from: old, to: new, into: &spans) {
                cached = log
                return true
            }
        }
        return false
    }

    /// Marks every log filed under `root`'s node wanted (see
    /// ``_ChangeLog/wanted``): a watcher that may read them has seen a
    /// state there (two stores started from one state value share the
    /// node, and the watcher may follow either). The last one found
    /// becomes `cached`. Called once per watcher, at its first contact.
    ///
    /// - Complexity: a directory lookup, O(logs filed under the node).
    @inlinable
    static func markWanted(under root: _RootVersion, cached: inout _ChangeLog?) {
        for log in _ChangeLogDirectory.shared.logs(under: root.node) {
            log._markWanted()
            cached = log
        }
    }

    /// As ``mayHaveWritten(from:to:where:)``, on `cached` or on a log filed
    /// under `new`'s root node (which becomes `cached`), as
    /// ``spans(from:to:into:cached:)`` finds it.
    @inlinable
    static func mayHaveWritten(
        from old: _RootVersion, to new: _RootVersion, cached: inout _ChangeLog?,
        where isRelevant: (NodeID, _WriteKind) -> Bool
    ) -> Bool? {
        if let log = cached, let answer = log.mayHaveWritten(from: old, to: new, where: isRelevant) { return answer }
        guard old.node == new.node, old.version < new.version else { return nil }
        for log in _ChangeLogDirectory.shared.logs(under: new.node) where log !== cached {
            if let answer = log.mayHaveWritten(from: old, to: new, where: isRelevant) {
                cached = log
                return answer
            }
        }
        return nil
    }
}
