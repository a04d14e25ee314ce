// Dynamic member lookup on a versioned node. Two overloads of each
// writable accessor: one over any member type (a plain member) and one over
// member types that are themselves versioned (a child node). Swift picks the
// more constrained overload statically, so no dynamic cast happens per
// access.
//
// Stored members are tracked one by one, by their storage range
// (`_FieldRange`): a write to `state.filter` affects readers of
// `state.filter`, not readers of `state.items`. Computed members are tracked
// coarsely (a read is a `.member` read, a write a `.content` write).

extension Versioned {
    /// A plain member of the node's value, read or written in place.
    ///
    /// Reading records a read of that member of this node. Writing copies
    /// this node's storage when shared, takes a fresh stamp and journals a
    /// change of that member.
    ///
    /// - Complexity: O(1) plus the key path's own cost; a write copies at
    ///   most this node's storage.
    @inlinable
    public subscript<T>(dynamicMember keyPath: WritableKeyPath<Value, T>) -> T {
        get {
            _recordRead(keyPath)
            return _box.value[keyPath: keyPath]
        }
        set {
            _makeUnique()
            _stampMemberWrite(keyPath)
            _box.value[keyPath: keyPath] = newValue
        }
        _modify {
            _makeUnique()
            _stampMemberWrite(keyPath)
            yield &_box.value[keyPath: keyPath]
        }
    }

    /// A read-only member (a computed property or a `let`) of the node's
    /// value. Records a read of that member.
    ///
    /// - Complexity: O(1) plus the key path's own cost.
    @inlinable
    public subscript<T>(dynamicMember keyPath: KeyPath<Value, T>) -> T {
        _recordRead(keyPath)
        return _box.value[keyPath: keyPath]
    }

    /// A child node of this node's value.
    ///
    /// Reading records a read of that member of this node (the child records
    /// what is read from it). Mutating through the child (`state.settings.theme
    /// = .dark`) journals the child's own writes and, when the child comes
    /// back as the same node changed only by journaled writes, a
    /// pass-through write of this node; if the child was replaced instead, a
    /// change of that member. Assigning a child (`state.settings = other`)
    /// is a change of that member.
    ///
    /// - Complexity: O(1) plus the key path's own cost; a write copies at
    ///   most this node's storage, the child pays for its own.
    @inlinable
    public subscript<T: VersionedValue>(dynamicMember keyPath: WritableKeyPath<Value, T>) -> T {
        get {
            _recordRead(keyPath)
            return _box.value[keyPath: keyPath]
        }
        set {
            _makeUnique()
            _stampMemberWrite(keyPath)
            _box.value[keyPath: keyPath] = newValue
        }
        _modify {
            _makeUnique()
            // NB: only the child's identity and stamp are kept across the
            // yield, never a copy of the child: a copy would share the
            // child's storage and force the child to copy it on write.
            let (beforeID, beforeVersion) = Self._identity(of: _box.value[keyPath: keyPath])
            let journaled = _WriteJournal.expect(beforeID, at: beforeVersion)
            defer {
                let (afterID, afterVersion) = Self._identity(of: _box.value[keyPath: keyPath])
                if afterID != beforeID || afterVersion != beforeVersion {
                    if journaled && _WriteJournal.isPassThrough(afterID, before: beforeID, at: afterVersion) {
                        _stampWrite(.passThrough)
                    } else {
                        _stampMemberWrite(keyPath)
                    }
                }
                // else: the child is the very node it was (same identity and
                // stamp, hence same value), so neither is this node changed.
            }
            yield &_box.value[keyPath: keyPath]
        }
    }

    // MARK: Tracking

    /// Records a read of the member at `keyPath`, if a recorder is
    /// installed.
    @inlinable @inline(__always)
    internal func _recordRead<T>(_ keyPath: KeyPath<Value, T>) {
        guard let recorder = _ReadRecorder._current.value else { return }
        let kind: _ReadKind = _FieldRange.of(keyPath).map { .field($0) } ?? .member
        recorder.dependencies.append(_Dependency(node: _box.nodeID, kind: kind))
    }

    /// Takes a fresh stamp for a write of the member at `keyPath` and
    /// journals it. The storage must be unique.
    @inlinable @inline(__always)
    internal func _stampMemberWrite<T>(_ keyPath: KeyPath<Value, T>) {
        let old = _box.version
        let new = VersionStamp.next()
        _box.version = new
        guard let journal = _WriteJournal._current.value else { return }
        let kind: _WriteKind = _FieldRange.of(keyPath).map { .field($0) } ?? .content
        journal._write(_box.nodeID, from: old, to: new, kind)
    }

    @inlinable @inline(__always)
    internal static func _identity<T: VersionedValue>(of child: T) -> (NodeID, VersionStamp) {
        (child.nodeID, child.version)
    }
}
