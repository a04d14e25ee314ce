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
/// - a stored member (`state.filter`) is read and written as that field of
///   the node; a computed member, or one with `willSet`/`didSet`, as the
///   node's contents (its getter, setter or observers may touch any field);
/// - a child node (`state.settings`) is a field read, and the child records
///   its own reads; a write *through* it (`state.settings.theme = .dark`)
///   changes the child's contents and only passes through this node, which
///   affects only readers of the whole node;
/// - ``value`` reads or replaces the node as a whole.
///
/// See docs/tracking.md, "The tracking contract", for what is recorded
/// and journaled, and what the tracking cannot see.
///
/// - Note: ``VersionedValue/nodeID`` and ``version`` are identity metadata.
///   Reading ``version`` counts as reading the whole node (it changes with
///   any write below, even of an equal value), reading `nodeID` records
///   nothing (it never changes).
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

    /// The node's identity and stamp, for the tracking layer (records
    /// nothing).
    @inlinable
    public var _trackingIdentity: _TrackingIdentity { _TrackingIdentity(node: _box.nodeID, version: _box.version) }

    /// Calls `body` with the node's value (for the tracking layer).
    @inlinable
    public func _forEachTrackedChild(_ body: (Any) -> Void) { body(_box.value) }

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
            _Tracking.recordWholeRead(_box.nodeID)
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
            _box = _box._copyForWrite()
        }
    }

    /// Takes a fresh stamp for a write of `kind` to this node and journals
    /// it. The storage must be unique.
    @inlinable @inline(__always)
    internal func _stampWrite(_ kind: _WriteKind) {
        let old = _box.version
        let new = VersionStamp.next()
        _box.version = new
        _Tracking.journalWrite(_box.nodeID, from: old, to: new, kind)
    }
}

// NB: declared here, not in an extension file: Swift requires a generic
// type's `Sendable` conformance in the file that declares it.
extension Versioned: Sendable where Value: Sendable {}
