/// A copy-on-write node of a versioned state tree.
///
/// Wrap a state type once, `Versioned<TodoState>`, and nest further nodes as
/// plain stored properties (`var settings: Versioned<Settings>`); reducers
/// keep writing `state.settings.theme = .dark` or `state.filter = .all`
/// unchanged, through dynamic member lookup.
///
/// Every node has a ``NodeID``, kept by its copies and by every version
/// written from it, and a ``VersionStamp`` that each write replaces with a
/// fresh one. Copies share storage until one of them is written; the writer
/// copies only the nodes on the written path. Two nodes with the same
/// identity and stamp hold the same value, which is what lets a
/// ``StateConsumer`` tell what changed without comparing values.
///
/// Reads through a node are recorded while a consumer evaluates a selector,
/// and writes are journaled while a ``Store`` drains, so that a consumer
/// re-evaluates only selectors that read something a drain wrote:
///
/// - a plain member (`state.filter`) reads the node's *member* contents;
///   a write to it changes them (journaled `.content`);
/// - a child node (`state.settings`) is also a member read, and the child
///   records its own reads; a write *through* it (`state.settings.theme =
///   .dark`) changes the child's contents and only passes through this node
///   (journaled `.passThrough`), which affects only readers of the whole
///   node;
/// - ``value`` reads or replaces the node as a whole.
///
/// - Note: ``nodeID`` and ``version`` are identity metadata. Reading
///   ``version`` counts as reading the whole node (it changes with any write
///   below), reading ``nodeID`` records nothing (it never changes).
@dynamicMemberLookup
public struct Versioned<Value>: VersionedValue {
    @usableFromInline internal var _box: _VersionedBox<Value>

    /// A new node holding `value`, with a new identity and a fresh stamp.
    ///
    /// - Complexity: O(1): one allocation, two atomic increments.
    @inlinable
    public init(_ value: Value) {
        _box = _VersionedBox(value: value, nodeID: .make(), version: .next())
    }

    /// The identity of this node, kept across copies and writes.
    @inlinable
    public var nodeID: NodeID { _box.nodeID }

    /// The stamp of this node's latest write (or creation). Any write at or
    /// below this node replaces it with a fresh one.
    ///
    /// Reading it inside a selector records a read of the whole node.
    @inlinable
    public var version: VersionStamp {
        _ReadRecorder.read(_box.nodeID, .whole)
        return _box.version
    }

    /// The node's whole value.
    ///
    /// Reading it records a read of the whole node; writing it (or mutating
    /// through it) copies the node if shared, takes a fresh stamp and
    /// journals a content change of this node.
    ///
    /// - Complexity: get O(1); a write copies this node's storage when it is
    ///   shared (O(size of `Value`'s inline representation)), never its
    ///   children.
    @inlinable
    public var value: Value {
        get {
            _ReadRecorder.read(_box.nodeID, .whole)
            return _box.value
        }
        set {
            _makeUnique()
            _stampWrite(.content)
            _box.value = newValue
        }
        _modify {
            _makeUnique()
            _stampWrite(.content)
            yield &_box.value
        }
    }

    // MARK: Engine

    /// Makes this node's storage unique (copying the box when shared) so that
    /// it can be written without affecting other copies.
    @inlinable @inline(__always)
    internal mutating func _makeUnique() {
        if !isKnownUniquelyReferenced(&_box) {
            _box = _box.copy()
        }
    }

    /// Takes a fresh stamp for a write of `kind` to this node and journals
    /// it. The storage must be unique.
    @inlinable @inline(__always)
    internal func _stampWrite(_ kind: _WriteKind) {
        let old = _box.version
        let new = VersionStamp.next()
        _box.version = new
        _WriteJournal.write(_box.nodeID, from: old, to: new, kind)
    }
}

// NB: declared here, not in an extension file: Swift requires a generic
// type's `Sendable` conformance in the file that declares it.
extension Versioned: Sendable where Value: Sendable {}
