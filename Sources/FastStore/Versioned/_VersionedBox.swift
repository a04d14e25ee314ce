/// The shared storage of a ``Versioned`` node: its value, its identity and
/// the stamp of its latest write.
///
/// Copies of a `Versioned` share one box until one of them is written; the
/// writer then copies the box (copy-on-write) and takes a fresh stamp, so a
/// box's `(nodeID, version)` always names exactly one value.
@usableFromInline
internal final class _VersionedBox<Value>: _VersionedBoxBase, @unchecked Sendable {
    // NB: `@unchecked Sendable` is sound because a box is only mutated while
    // uniquely referenced (see `Versioned._makeUnique()`); `Versioned` itself
    // is `Sendable` only when `Value` is.
    // NB: `@exclusivity(unchecked)`: a box is written only by the holder of
    // its only reference (copy-on-write), so the dynamic exclusivity checks
    // Swift adds to class properties would guard nothing, at a cost on every
    // write.
    // NB: optional only so that a box the store's recycler keeps as a spare
    // holds no value (`_emptyForReuse`); every box in a `Versioned` holds
    // one.
    @exclusivity(unchecked) @usableFromInline var _value: Value?

    /// The node's value.
    @inlinable var value: Value {
        @inline(__always) get { _value.unsafelyUnwrapped }
        @inline(__always) set { _value = newValue }
        @inline(__always) _modify { yield &_value! }
    }

    /// The address of the value, for the holder of the box's only
    /// reference, to write a stored member in place (see `Versioned`'s
    /// child-node `_modify`) or to empty the box (``_emptyForReuse()``).
    /// Valid while the box lives: a class's stored property does not move.
    // NB: an optional's payload is at its start (every single-payload
    // enum's is); a box in a `Versioned` always holds a value.
    @inlinable var _valueAddress: UnsafeMutableRawPointer {
        @inline(__always) get { withUnsafeMutablePointer(to: &_value) { UnsafeMutableRawPointer($0) } }
    }

    @inlinable
    init(value: Value, nodeID: NodeID, version: VersionStamp) {
        self._value = value
        super.init(nodeID: nodeID, version: version)
    }

    /// A copy of this box for a writer: same value, identity and stamp (the
    /// writer takes a fresh stamp right after).
    @inlinable
    func copy() -> _VersionedBox {
        _VersionedBox(value: value, nodeID: nodeID, version: version)
    }

    /// A copy of this shared box for a writer, as ``copy()``: in the storage
    /// of a spare box when the draining store's recycler has one, and this
    /// box kept for the recycler (see `_NodeRecycler`).
    ///
    /// - Complexity: O(size of `Value`'s inline representation); one
    ///   allocation when no spare fits.
    @inlinable
    func _copyForWrite() -> _VersionedBox {
        guard let recycler = _TrackingContext._recycler else { return copy() }
        return recycler._withUnsafeGuaranteedRef { recycler in
            let box: _VersionedBox
            if let spare = recycler.take(like: self, shape: 0) {
                // NB: the spare is empty (``_emptyForReuse()``), so its
                // optional is initialized, not assigned; and the value is
                // copied as a `Value` (`_value!` projects the payload):
                // an `Optional<Value>` copied or destroyed as a whole goes
                // through the optional's generic value witnesses (a
                // metadata lookup and a call per operation).
                // NB: not in `value`'s getter: there, the check of `!`
                // kept key-path writes through `Versioned` from being
                // compiled to direct accesses (docs/benchmarks/MEASUREMENTS.md).
                #if FASTSTORE_INTERNAL_CHECKS
                precondition(spare._value == nil, "_VersionedBox: a spare box that holds a value")
                #endif
                withUnsafeMutablePointer(to: &spare._value) { $0.initialize(to: _value!) }
                spare.nodeID = nodeID
                spare.version = version
                box = spare
            } else {
                box = copy()
            }
            if MemoryLayout<Value>.size <= _NodeRecycler.maxItemBytes && recycler.wants(stamp: version) {
                recycler.keep(self, shape: 0)
            }
            return box
        }
    }
}

extension _VersionedBox: _RecyclableNode {
    @inlinable
    func _emptyForReuse() {
        // NB: the value moved out and destroyed as a `Value` (see
        // `_copyForWrite()`), and nil initialized over the moved-out bits.
        #if FASTSTORE_INTERNAL_CHECKS
        precondition(_value != nil, "_VersionedBox: a box emptied twice")
        #endif
        // NB: moved out, not `deinitialize(count:)`: that is a runtime call
        // through the type's metadata. Nil is written before the value is
        // dropped, so that the `deinit`s its release runs never find a
        // destroyed value here.
        let old = _valueAddress.assumingMemoryBound(to: Value.self).move()
        withUnsafeMutablePointer(to: &_value) { $0.initialize(to: nil) }
        _ = consume old
    }
}

/// The part of every ``Versioned`` node's box that does not depend on its
/// value: its identity and stamp, at the same place in every box, so the
/// root identity of any `Versioned` state is read without generics (see
/// `_TrackingIdentity.reader(for:)`).
@usableFromInline
internal class _VersionedBoxBase: @unchecked Sendable {
    // NB: `@unchecked Sendable`: see `_VersionedBox`.
    // NB: a `var` only for a spare box that the store's recycler hands to
    // a copy (`_VersionedBox._copyForWrite`); never changed otherwise.
    @exclusivity(unchecked) @usableFromInline final var nodeID: NodeID
    @exclusivity(unchecked) @usableFromInline final var version: VersionStamp

    @inlinable
    init(nodeID: NodeID, version: VersionStamp) {
        self.nodeID = nodeID
        self.version = version
    }
}

/// Marks ``Versioned``: a struct whose only stored property is its box, so
/// that its bits are a `_VersionedBoxBase` reference.
@usableFromInline
internal protocol _BoxedVersionedValue {}

extension Versioned: _BoxedVersionedValue {}
