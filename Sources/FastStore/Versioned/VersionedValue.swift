/// A value FastStore can see the identity and version of: ``Versioned`` nodes
/// and the versioned collections (``VersionedList``, ``IdentifiedList``,
/// ``VersionedDictionary``).
///
/// Two values with equal `nodeID` and `version` have equal contents: the
/// consumers skip work on that promise. Only FastStore's own types keep it
/// (every write takes a fresh stamp, and reads and writes report to the
/// tracking layer), so the protocol is not meant for conformance outside
/// FastStore: its requirement is underscored, and what it returns can only
/// be made by FastStore. Use it as a constraint.
public protocol VersionedValue {
    /// The node's identity and the stamp of its latest write, without
    /// recording a read. FastStore's types only.
    var _trackingIdentity: _TrackingIdentity { get }
    /// Calls `body` with what the value holds (a node's value, a
    /// collection's elements), without recording. FastStore's types only.
    func _forEachTrackedChild(_ body: (Any) -> Void)
}

extension VersionedValue {
    /// The identity of this value's node, kept across copies and writes.
    /// Reading it records nothing (it never changes).
    @inlinable
    public var nodeID: NodeID { _trackingIdentity.node }

    /// The stamp of this value's latest write. Reading it records a read of
    /// the whole value (it changes with any write, even of an equal value).
    @inlinable
    public var version: VersionStamp {
        let identity = _trackingIdentity
        _Tracking.recordWholeRead(identity.node)
        return identity.version
    }
}

/// A versioned value's identity and stamp, as FastStore's types report them
/// to the tracking layer. Opaque: only FastStore makes one.
public struct _TrackingIdentity: Hashable, Sendable {
    @usableFromInline internal let node: NodeID
    @usableFromInline internal let version: VersionStamp
    @inlinable internal init(node: NodeID, version: VersionStamp) { self.node = node; self.version = version }
}

/// The root identity and version of a state whose type is a
/// ``VersionedValue``.
@usableFromInline
internal typealias _RootVersion = _TrackingIdentity

extension _TrackingIdentity {
    /// A function reading the root identity of a `State`, or `nil` when
    /// `State` is not a ``VersionedValue``. Resolve it once per store or
    /// consumer, not per call: it opens the metatype existential.
    @inlinable
    static func reader<State>(for type: State.Type) -> ((State) -> _TrackingIdentity)? {
        if type is _BoxedVersionedValue.Type, MemoryLayout<State>.size == MemoryLayout<_VersionedBoxBase>.size {
            // NB: a `Versioned` root (the usual case) is one box reference;
            // its identity is read from the box's base, without the generic
            // call through `VersionedValue` below (about 200 instructions,
            // a few times per dispatch).
            return { state in
                let box = unsafeBitCast(state, to: Unmanaged<_VersionedBoxBase>.self)
                return box._withUnsafeGuaranteedRef { _TrackingIdentity(node: $0.nodeID, version: $0.version) }
            }
        }
        if let list = type as? any _VersionedListLayout.Type, MemoryLayout<State>.size == 16, list._identityAtFixedOffsets {
            // NB: a `VersionedList` is its root node and its `NodeID`; the
            // root's stamp is the first word of its header, after the
            // object's two words. Read so, without the generic getter
            // (about 200 instructions per list selection evaluated).
            return { state in
                let words = unsafeBitCast(state, to: (UnsafeRawPointer, UInt64).self)
                return _TrackingIdentity(
                    node: NodeID(rawValue: words.1),
                    version: VersionStamp(rawValue: words.0.load(fromByteOffset: 16, as: UInt64.self)))
            }
        }
        guard let versioned = type as? any VersionedValue.Type else { return nil }
        func make<V: VersionedValue>(_: V.Type) -> (State) -> _TrackingIdentity {
            // NB: `State == V` here; the bit cast spares a dynamic cast per call.
            { state in unsafeBitCast(state, to: V.self)._trackingIdentity }
        }
        return make(versioned)
    }
}
