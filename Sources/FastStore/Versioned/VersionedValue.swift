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
    /// How the root identity of a `State` is read (see ``reader(for:)``).
    /// Read in place (``read(_:layout:)``), a box or a list needs no copy
    /// of the state: a drain reads its working copy's root so.
    @usableFromInline
    enum _Layout {
        /// A `Versioned` root (the usual case): one box reference, its
        /// identity read from the box's base, without the generic call
        /// through `VersionedValue` (about 200 instructions, a few times per
        /// dispatch).
        case box
        /// A `VersionedList`: its root node and its `NodeID`; the root's
        /// stamp is the first word of its header, after the object's two
        /// words. Read so, without the generic getter (about 200
        /// instructions per list selection evaluated).
        case list
        /// Any other ``VersionedValue``: through `_trackingIdentity`.
        case generic(any VersionedValue.Type)
    }

    /// The layout of `State`, or `nil` when it is not a ``VersionedValue``.
    @inlinable
    static func _layout<State>(of type: State.Type) -> _Layout? {
        if type is _BoxedVersionedValue.Type, MemoryLayout<State>.size == MemoryLayout<_VersionedBoxBase>.size {
            return .box
        }
        if let list = type as? any _VersionedListLayout.Type, MemoryLayout<State>.size == 16, list._identityAtFixedOffsets {
            return .list
        }
        guard let versioned = type as? any VersionedValue.Type else { return nil }
        return .generic(versioned)
    }

    /// The identity of a `Versioned` root's box (`.box`).
    @inlinable @inline(__always)
    static func _readBox(_ box: Unmanaged<_VersionedBoxBase>) -> _TrackingIdentity {
        box._withUnsafeGuaranteedRef { _TrackingIdentity(node: $0.nodeID, version: $0.version) }
    }

    /// The identity of a `VersionedList` (`.list`), from its two words.
    @inlinable @inline(__always)
    static func _readList(root: UnsafeRawPointer, node: UInt64) -> _TrackingIdentity {
        _TrackingIdentity(node: NodeID(rawValue: node), version: VersionStamp(rawValue: root.load(fromByteOffset: 16, as: UInt64.self)))
    }

    /// The root identity of the `State` at `state`, whose layout this is,
    /// read where it is stored: for a box or a list with no copy of the
    /// state (a copy is a retain and a release; held across a reduction,
    /// it would make the reducer copy the root).
    @inlinable @inline(__always)
    static func read<State>(_ state: UnsafePointer<State>, layout: _Layout) -> _TrackingIdentity {
        let raw = UnsafeRawPointer(state)
        switch layout {
        case .box: return _readBox(raw.load(as: Unmanaged<_VersionedBoxBase>.self))
        case .list: return _readList(root: raw.load(as: UnsafeRawPointer.self), node: raw.load(fromByteOffset: 8, as: UInt64.self))
        case .generic(let versioned):
            // NB: opens the type on every call: a hot path keeps a
            // ``reader(for:)`` for this layout instead.
            func read<V: VersionedValue>(_: V.Type) -> _TrackingIdentity {
                raw.assumingMemoryBound(to: V.self).pointee._trackingIdentity
            }
            return read(versioned)
        }
    }

    /// A function reading the root identity of a `State`, or `nil` when
    /// `State` is not a ``VersionedValue``. Resolve it once per store or
    /// consumer, not per call: it opens the metatype existential.
    @inlinable
    static func reader<State>(for type: State.Type) -> ((State) -> _TrackingIdentity)? {
        switch _layout(of: type) {
        case nil: return nil
        case .box: return { state in _readBox(unsafeBitCast(state, to: Unmanaged<_VersionedBoxBase>.self)) }
        case .list:
            return { state in
                let words = unsafeBitCast(state, to: (UnsafeRawPointer, UInt64).self)
                return _readList(root: words.0, node: words.1)
            }
        case .generic(let versioned):
            func make<V: VersionedValue>(_: V.Type) -> (State) -> _TrackingIdentity {
                // NB: `State == V` here; the bit cast spares a dynamic cast per call.
                { state in unsafeBitCast(state, to: V.self)._trackingIdentity }
            }
            return make(versioned)
        }
    }
}
