/// Where a watcher handed a state finds the change log of the store that
/// made it: every store's ``_ChangeLog``, filed under the root node its
/// states carry.
///
/// Two stores may file under one node (both started from one state value,
/// whose root node their copies keep): the lookups try each. A log is filed
/// weakly; its store holds it, and so may the watchers that found it.
@usableFromInline
internal final class _ChangeLogDirectory: @unchecked Sendable {
    // NB: `@unchecked Sendable`: `logs` is guarded by `lock`.
    @usableFromInline static let shared = _ChangeLogDirectory()

    @usableFromInline struct _Filed {
        @usableFromInline weak var log: _ChangeLog?
        @usableFromInline let id: ObjectIdentifier
        @inlinable init(_ log: _ChangeLog) {
            self.log = log
            self.id = ObjectIdentifier(log)
        }
    }

    @usableFromInline let lock = _Lock()
    @exclusivity(unchecked) @usableFromInline var logs: [NodeID: [_Filed]] = [:]

    @usableFromInline init() {}

    /// Files `log` under `node`, and no longer under `previous`.
    ///
    /// - Complexity: O(logs filed under either node), amortized.
    @usableFromInline
    func file(_ log: _ChangeLog, under node: NodeID, leaving previous: NodeID?) {
        lock.lock()
        defer { lock.unlock() }
        if let previous { _remove(ObjectIdentifier(log), from: previous) }
        logs[node, default: []].append(_Filed(log))
    }

    /// Forgets the log `id` filed under `node` (a log going away), and any
    /// log there that went away.
    ///
    /// - Complexity: O(logs filed under `node`).
    @usableFromInline
    func remove(_ id: ObjectIdentifier, from node: NodeID) {
        lock.lock()
        defer { lock.unlock() }
        _remove(id, from: node)
    }

    /// Must hold the lock.
    @usableFromInline
    func _remove(_ id: ObjectIdentifier, from node: NodeID) {
        guard var filed = logs[node] else { return }
        filed.removeAll { $0.id == id || $0.log == nil }
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
        return filed.reversed().compactMap(\.log)
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
