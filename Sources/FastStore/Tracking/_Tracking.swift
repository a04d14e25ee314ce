/// The hooks every versioned type calls to report its reads and writes: the
/// only way into the read recorder and the write journal.
///
/// - Reads: ``recordRead(_:_:)`` and its shorthands, while a consumer
///   evaluates a selector, or as Observation accesses on a thread that
///   read a versioned store's `state`.
/// - Writes: ``journalWrite(_:from:to:_:)`` and its shorthands, while a
///   store drains. A versioned type takes a fresh stamp for every write
///   (journaled or not) and reports the old and new stamp.
/// - Child access: ``beginChildAccess(_:)`` before yielding a child node for
///   mutation and ``endChildAccess(_:_:)`` after, which tells the parent
///   whether the child came back untouched, written through (a pass-through
///   the journal proves) or replaced.
///
/// Each hook costs one thread-local load and a nil check when nothing is
/// installed; keys are built only when something records.
@usableFromInline
internal enum _Tracking {
    // MARK: Reads

    /// Records a read of `kind` on `node`, if a recorder is installed; else,
    /// on a thread whose reads are observed, tells the thread's read
    /// observer (the Observation layer's, `_ObservedThread`).
    @inlinable @inline(__always)
    static func recordRead(_ node: NodeID, _ kind: @autoclosure () -> _ReadKind) {
        _TrackingContext._withPresent { context in
            if let recorder = context._recorder {
                recorder._withUnsafeGuaranteedRef { $0.dependencies.append(_Dependency(node: node, kind: kind())) }
            } else if context.observesReads, let observer = context.readObserver {
                observer.observeRead(node, kind())
            }
        }
    }

    /// Records a read of the whole value of `node`.
    @inlinable @inline(__always)
    static func recordWholeRead(_ node: NodeID) {
        recordRead(node, .whole)
    }

    /// Records a read of the structure of the collection `node` (its count,
    /// or its ids and their order).
    @inlinable @inline(__always)
    static func recordStructureRead(_ node: NodeID) {
        recordRead(node, .structure)
    }

    /// Records a read of one element of `node`, keyed by `key`.
    @inlinable @inline(__always)
    static func recordElementRead<Key: Hashable>(_ node: NodeID, _ key: @autoclosure () -> Key) {
        recordRead(node, .element(_ElementKey(key())))
    }

    /// Records a read of the member of `node` that `keyPath` leads to: its
    /// field when it is a plain stored property, else a coarse member read.
    @inlinable @inline(__always)
    static func recordMemberRead<Root, T>(_ node: NodeID, _ keyPath: KeyPath<Root, T>) {
        recordRead(node, _FieldRange.of(keyPath).map { .field($0) } ?? .member)
    }

    // MARK: Writes

    /// Journals a write of `kind` that took `node` from stamp `old` to stamp
    /// `new`, if a journal is installed.
    @inlinable @inline(__always)
    static func journalWrite(_ node: NodeID, from old: VersionStamp, to new: VersionStamp, _ kind: @autoclosure () -> _WriteKind) {
        _ = _TrackingContext._withJournal { $0._write(node, from: old, to: new, kind()) }
    }

    /// Journals a write of one element of `node`, keyed by `key`, that may
    /// have inserted or removed it.
    @inlinable @inline(__always)
    static func journalElementWrite<Key: Hashable>(
        _ node: NodeID, from old: VersionStamp, to new: VersionStamp, _ key: @autoclosure () -> Key
    ) {
        journalWrite(node, from: old, to: new, .element(_ElementKey(key())))
    }

    /// Journals a write of the value of one element of `node`, keyed by
    /// `key`, in place: present before and after, at the same position
    /// (see ``_WriteKind/elementValue(_:)``).
    @inlinable @inline(__always)
    static func journalElementValueWrite<Key: Hashable>(
        _ node: NodeID, from old: VersionStamp, to new: VersionStamp, _ key: @autoclosure () -> Key
    ) {
        journalWrite(node, from: old, to: new, .elementValue(_ElementKey(key())))
    }

    /// Journals a write of the member of `node` that `keyPath` leads to: its
    /// field when it is a plain stored property, else a content change (a
    /// setter or an observer may have written anything in the node).
    @inlinable @inline(__always)
    static func journalMemberWrite<Root, T>(
        _ node: NodeID, from old: VersionStamp, to new: VersionStamp, _ keyPath: KeyPath<Root, T>
    ) {
        journalWrite(node, from: old, to: new, _FieldRange.of(keyPath).map { .field($0) } ?? .content)
    }

    // MARK: Child access

    /// Starts an access to `child` that a parent yields for mutation:
    /// notes its identity and stamp (never a copy of it, which would share
    /// its storage and force a copy on write).
    @inlinable @inline(__always)
    static func beginChildAccess<Child: VersionedValue>(_ child: Child) -> _ChildAccess {
        _ChildAccess(child._trackingIdentity)
    }

    /// Ends an access started by ``beginChildAccess(_:)``, given the child
    /// as it came back.
    ///
    /// - Returns: ``_ChildAccessOutcome/untouched`` when it is the very node
    ///   it was (same identity and stamp, hence same value);
    ///   ``_ChildAccessOutcome/passThrough`` when it is the same node and the
    ///   journal holds a chain of writes from its old stamp to its new one;
    ///   ``_ChildAccessOutcome/replaced`` otherwise (another node, an older
    ///   or unjournaled copy, or no journal to prove anything).
    @inlinable @inline(__always)
    static func endChildAccess<Child: VersionedValue>(_ access: _ChildAccess, _ child: Child) -> _ChildAccessOutcome {
        endChildAccess(access, child._trackingIdentity)
    }

    /// ``endChildAccess(_:_:)``, given the child's identity as it came back.
    @inlinable @inline(__always)
    static func endChildAccess(_ access: _ChildAccess, _ after: _TrackingIdentity) -> _ChildAccessOutcome {
        if after == access.before { return .untouched }
        if after.node == access.before.node,
           _TrackingContext._withJournal({ $0.chains(after.node, from: access.before.version, to: after.version) }) == true {
            return .passThrough
        }
        return .replaced
    }
}

/// What ``_Tracking/beginChildAccess(_:)`` notes of a child.
@usableFromInline
internal struct _ChildAccess {
    @usableFromInline let before: _TrackingIdentity
    @inlinable init(_ before: _TrackingIdentity) { self.before = before }
}

/// How a child yielded for mutation came back (see
/// ``_Tracking/endChildAccess(_:_:)``). The parent maps it to its own write:
/// nothing or a pass-through for the first two when it can, a change of the
/// member or element that holds the child for the third.
@usableFromInline
internal enum _ChildAccessOutcome {
    case untouched
    case passThrough
    case replaced
}
