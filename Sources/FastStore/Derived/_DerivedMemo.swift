/// One computation of a ``Derived`` value: the value and what computing it
/// read. Immutable once made, so that threads reading the derived value
/// share it without a lock.
@usableFromInline
internal final class _DerivedMemo<Value>: @unchecked Sendable {
    // NB: `@unchecked Sendable`: immutable; `Derived` is `Sendable` only
    // when `Value` is.
    @usableFromInline let value: Value
    /// What the computation read, without repeats, in the order first read.
    @usableFromInline let dependencies: [_Dependency]
    /// The same, by node, when there are many (a write is looked up in
    /// it); nil when there are few (a write is checked against each).
    @usableFromInline let readsByNode: [NodeID: [_ReadKind]]?

    /// Up to this many dependencies are scanned rather than indexed.
    @usableFromInline static var _scanLimit: Int { 8 }

    /// The memo of `value`, whose computation recorded `recorded`. When
    /// `previous` recorded the same reads (the usual case: a computation
    /// reads the same nodes every time), its lists are shared.
    ///
    /// - Complexity: O(recorded).
    @usableFromInline
    init(value: Value, recorded: [_Dependency], previous: _DerivedMemo<Value>?) {
        self.value = value
        if let previous, previous.dependencies == recorded {
            dependencies = previous.dependencies
            readsByNode = previous.readsByNode
            return
        }
        var dependencies: [_Dependency] = []
        dependencies.reserveCapacity(recorded.count)
        if recorded.count <= Self._scanLimit {
            for dependency in recorded where !dependencies.contains(dependency) {
                dependencies.append(dependency)
            }
        } else {
            var seen = Set<_Dependency>(minimumCapacity: recorded.count)
            for dependency in recorded where seen.insert(dependency).inserted {
                dependencies.append(dependency)
            }
        }
        self.dependencies = dependencies
        if dependencies.count <= Self._scanLimit {
            readsByNode = nil
        } else {
            var readsByNode: [NodeID: [_ReadKind]] = [:]
            for dependency in dependencies {
                readsByNode[dependency.node, default: []].append(dependency.kind)
            }
            self.readsByNode = readsByNode
        }
    }

    /// Whether a write of `kind` on `node` can change what the computation
    /// read (the trigger rule, ``_WriteKind/affects(_:)``).
    ///
    /// - Complexity: O(1) plus the kinds read of `node`; O(dependencies)
    ///   when they are few enough to scan.
    @inlinable
    func _isAffected(by node: NodeID, _ kind: _WriteKind) -> Bool {
        guard let readsByNode else {
            for dependency in dependencies where dependency.node == node && kind.affects(dependency.kind) {
                return true
            }
            return false
        }
        guard let reads = readsByNode[node] else { return false }
        for read in reads where kind.affects(read) { return true }
        return false
    }

    /// Whether the memo, right for the state at `old`, is right for the
    /// state at `new`: `true` for the same root and stamp, or logged store
    /// drains from one to the other none of whose writes affects what it
    /// read; `false` when one does; `nil` when the change log cannot link
    /// the two (the memo may not hold). `changeLog` is the log that linked
    /// states last, replaced by the one that links these.
    ///
    /// - Complexity: O(1) for the same stamp; else O(the drains' writes).
    @inlinable
    func _holds(from old: _RootVersion, to new: _RootVersion, changeLog: inout _ChangeLog?) -> Bool? {
        if old == new { return true }
        return _ChangeLog.mayHaveWritten(from: old, to: new, cached: &changeLog) { node, kind in
            _isAffected(by: node, kind)
        }.map { !$0 }
    }

    /// Reports what the computation read to the recorder installed on the
    /// calling thread (a selector or another derived value being
    /// evaluated), or as Observation accesses on a thread whose reads are
    /// observed; to nobody otherwise.
    ///
    /// - Complexity: O(dependencies) when something records; O(1) else.
    @inlinable
    func _report() {
        guard let context = _TrackingContext.ifPresent,
              context.recorder != nil || context.observesReads else { return }
        for dependency in dependencies {
            _Tracking.recordRead(dependency.node, dependency.kind)
        }
    }
}
