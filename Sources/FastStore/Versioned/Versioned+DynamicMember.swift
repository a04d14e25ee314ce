// Dynamic member lookup on a versioned node. Two overloads of each
// writable accessor: one over any member type (a plain member) and one over
// member types that are themselves versioned (a child node). Swift picks the
// more constrained overload statically, so no dynamic cast happens per
// access.
//
// Stored members are tracked one by one, by their storage range
// (`_FieldRange`): a write to `state.filter` affects readers of
// `state.filter`, not readers of `state.items`. Computed members, and
// stored members with `willSet`/`didSet` observers, are tracked coarsely:
// a read is a member read, a write a content change of the node (a setter
// or an observer can write any field).

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
        @inline(__always) get { _readMember(keyPath) }
        @inline(__always) set { _writeMember(keyPath, newValue) }
        @inline(__always) _modify {
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
        @inline(__always) get { _readMember(keyPath) }
    }

    /// A child node of this node's value.
    ///
    /// Reading records a read of that member of this node (the child records
    /// what is read from it). Mutating through the child (`state.settings.theme
    /// = .dark`) journals the child's own writes and, when the child comes
    /// back as the same node changed only by journaled writes, a
    /// pass-through write of this node; if the child was replaced instead, a
    /// change of that member. Assigning a child (`state.settings = other`)
    /// is a change of that member. When the member is computed or observed
    /// (`didSet`), any mutation through it is a content change of this node.
    ///
    /// - Complexity: O(1) plus the key path's own cost; a write copies at
    ///   most this node's storage, the child pays for its own.
    @inlinable
    public subscript<T: VersionedValue>(dynamicMember keyPath: WritableKeyPath<Value, T>) -> T {
        @inline(__always) get { _readMember(keyPath) }
        @inline(__always) set { _writeMember(keyPath, newValue) }
        @inline(__always) _modify {
            _makeUnique()
            let range = _FieldRange.of(keyPath)
            // NB: a stored member is reached at its offset in the box's
            // value: where the caller's code is too big for this accessor
            // to be inlined (a reducer's long `switch`), the key path is
            // not folded, and projecting it at run time (three times) is
            // far dearer than the offset, one lookup, folded where the
            // accessor is inlined (docs/benchmarks/MEASUREMENTS.md). A computed or observed
            // member is read into a temporary and set back through the key
            // path, as the key path's own `_modify` does. One `yield`:
            // with two (the offset's, the key path's), small reducers'
            // writes grew dearer (docs/benchmarks/MEASUREMENTS.md).
            let member: UnsafeMutablePointer<T>
            if let range {
                member = _box._valueAddress.advanced(by: range.offset).assumingMemoryBound(to: T.self)
            } else {
                member = .allocate(capacity: 1)
                member.initialize(to: _box.value[keyPath: keyPath])
            }
            let access = _Tracking.beginChildAccess(member.pointee)
            defer {
                let after = member.pointee._trackingIdentity
                if range == nil {
                    _box.value[keyPath: keyPath] = member.move()
                    member.deallocate()
                }
                _endChildAccess(access, range, after: after)
            }
            yield &member.pointee
        }
    }

    /// Ends a mutation through a child node (stored at `range`, or computed
    /// or observed when `range` is `nil`) that came back as `after`: stamps
    /// and journals what it did to this node.
    ///
    /// NB: the caller reads `after` from the member it yielded; what is
    /// left here does not depend on the key path, which keeps the `defer`
    /// that calls it small enough to be inlined.
    @inlinable
    internal mutating func _endChildAccess(_ access: _ChildAccess, _ range: _FieldRange?, after: _TrackingIdentity) {
        if let range {
            switch _Tracking.endChildAccess(access, after) {
            case .untouched: break  // the very node it was: nothing changed here
            case .passThrough: _stampWrite(.passThrough)
            case .replaced: _stampWrite(.field(range))
            }
        } else {
            // NB: a computed member's setter, or a stored member's
            // `didSet`, ran and may have written any field.
            _stampWrite(.content)
        }
    }

    /// Reads the member at `keyPath`, recording the read.
    @inlinable @inline(__always)
    internal func _readMember<T>(_ keyPath: KeyPath<Value, T>) -> T {
        _Tracking.recordMemberRead(_box.nodeID, keyPath)
        return _box.value[keyPath: keyPath]
    }

    /// Assigns the member at `keyPath`, journaling the write.
    @inlinable @inline(__always)
    internal mutating func _writeMember<T>(_ keyPath: WritableKeyPath<Value, T>, _ newValue: T) {
        _makeUnique()
        _stampMemberWrite(keyPath)
        _box.value[keyPath: keyPath] = newValue
    }

    /// Takes a fresh stamp for a write of the member at `keyPath` and
    /// journals it. The storage must be unique.
    @inlinable @inline(__always)
    internal func _stampMemberWrite<T>(_ keyPath: KeyPath<Value, T>) {
        let old = _box.version
        let new = VersionStamp.next()
        _box.version = new
        _Tracking.journalMemberWrite(_box.nodeID, from: old, to: new, keyPath)
    }
}

extension Versioned: Identifiable where Value: Identifiable {
    /// The value's identity, so that nodes can be the rows of an
    /// ``IdentifiedList``. Records a read of the value's `id` member.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var id: Value.ID { _readMember(\Value.id) }
}
