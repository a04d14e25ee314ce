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
    /// The same, by node: what a write is checked against.
    @usableFromInline let readsByNode: [NodeID: [_ReadKind]]

    /// The memo of `value`, whose computation recorded `recorded`.
    ///
    /// - Complexity: O(recorded).
    @usableFromInline
    init(value: Value, recorded: [_Dependency]) {
        self.value = value
        var seen = Set<_Dependency>()
        var dependencies: [_Dependency] = []
        var readsByNode: [NodeID: [_ReadKind]] = [:]
        for dependency in recorded where seen.insert(dependency).inserted {
            dependencies.append(dependency)
            readsByNode[dependency.node, default: []].append(dependency.kind)
        }
        self.dependencies = dependencies
        self.readsByNode = readsByNode
    }

    /// Whether a write of `kind` on `node` can change what the computation
    /// read (the trigger rule, ``_WriteKind/affects(_:)``).
    ///
    /// - Complexity: O(1) plus the kinds read of `node`.
    @inlinable
    func _isAffected(by node: NodeID, _ kind: _WriteKind) -> Bool {
        guard let reads = readsByNode[node] else { return false }
        for read in reads where kind.affects(read) { return true }
        return false
    }

    /// Whether the memo, right for the state at `old`, is right for the
    /// state at `new`: the same root and stamp, or logged store drains
    /// from one to the other none of whose writes affects what it read.
    ///
    /// - Complexity: O(1) for the same stamp; else O(the drains' writes).
    @inlinable
    func _holds(from old: _RootVersion, to new: _RootVersion) -> Bool {
        if old == new { return true }
        return !_ChangeLog.shared.mayHaveWritten(from: old, to: new) { node, kind in
            _isAffected(by: node, kind)
        }
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
