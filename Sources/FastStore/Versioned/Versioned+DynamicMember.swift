// Dynamic member lookup on a versioned node. Two overloads of each
// accessor: one over any member type (a plain member) and one over member
// types that are themselves versioned (a child node). Swift picks the more
// constrained overload statically, so no dynamic cast happens per access.

extension Versioned {
    /// A plain member of the node's value, read or written in place.
    ///
    /// Reading records a member read of this node. Writing copies this node's
    /// storage when shared, takes a fresh stamp and journals a content change
    /// of this node.
    ///
    /// - Complexity: O(1) plus the key path's own cost; a write copies at
    ///   most this node's storage.
    @inlinable
    public subscript<T>(dynamicMember keyPath: WritableKeyPath<Value, T>) -> T {
        get {
            _ReadRecorder.read(_box.nodeID, .member)
            return _box.value[keyPath: keyPath]
        }
        set {
            _makeUnique()
            _stampWrite(.content)
            _box.value[keyPath: keyPath] = newValue
        }
        _modify {
            _makeUnique()
            _stampWrite(.content)
            yield &_box.value[keyPath: keyPath]
        }
    }

    /// A read-only member (a computed property or a `let`) of the node's
    /// value. Records a member read of this node.
    ///
    /// - Complexity: O(1) plus the key path's own cost.
    @inlinable
    public subscript<T>(dynamicMember keyPath: KeyPath<Value, T>) -> T {
        _ReadRecorder.read(_box.nodeID, .member)
        return _box.value[keyPath: keyPath]
    }

    /// A child node of this node's value.
    ///
    /// Reading records a member read of this node (the child records what is
    /// read from it). Mutating through the child (`state.settings.theme =
    /// .dark`) journals the child's own writes and, when the child comes
    /// back as the same node changed only by journaled writes, a
    /// pass-through write of this node; if the child was replaced instead,
    /// a content change. Assigning a child (`state.settings = other`) is a
    /// content change of this node.
    ///
    /// - Complexity: O(1) plus the key path's own cost; a write copies at
    ///   most this node's storage, the child pays for its own.
    @inlinable
    public subscript<T: VersionedValue>(dynamicMember keyPath: WritableKeyPath<Value, T>) -> T {
        get {
            _ReadRecorder.read(_box.nodeID, .member)
            return _box.value[keyPath: keyPath]
        }
        set {
            _makeUnique()
            _stampWrite(.content)
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
                    let passThrough = journaled
                        && _WriteJournal.isPassThrough(afterID, before: beforeID, at: afterVersion)
                    _stampWrite(passThrough ? .passThrough : .content)
                }
                // else: the child is the very node it was (same identity and
                // stamp, hence same value), so neither is this node changed.
            }
            yield &_box.value[keyPath: keyPath]
        }
    }

    @inlinable @inline(__always)
    internal static func _identity<T: VersionedValue>(of child: T) -> (NodeID, VersionStamp) {
        (child.nodeID, child.version)
    }
}
