/// An ordered list of identifiable elements (the shape of a table's rows):
/// random access by position, lookup by id, unique ids, stored as persistent
/// trees with a version stamp per node.
///
/// Positions live in a ``VersionedList`` of the elements, whose leaves carry
/// order labels (increasing along the list); an id index (a hash trie with
/// buckets for leaves, no stamps) files each element under a 32-bit
/// fragment of its id's hash with the label of the leaf holding it, in 8
/// bytes. Finding an id is an index lookup, a descent by label (O(log n)
/// levels), then a look at one leaf (at the offset the entry hints, else a
/// scan): no bookkeeping per element beyond its index entry. Two ids whose
/// fragments are equal are told apart by comparing the ids in their
/// leaves.
///
/// For FastStore's consumers: reading by id records that id; reading by
/// position, count, iteration, comparison or description records the whole
/// list. Writing, inserting or removing by id journals that id; reordering
/// (sort, remove where) journals a structural write.
public struct IdentifiedList<Element: Identifiable> {
    public typealias ID = Element.ID

    @usableFromInline var _list: VersionedList<Element>
    @usableFromInline var _labels: _IdentityIndex

    /// An empty list with a new identity.
    @inlinable
    public init() {
        _list = VersionedList()
        _labels = _IdentityIndex()
    }

    /// A list of `elements`, in order, with a new identity.
    ///
    /// - Precondition: the ids are unique ("IdentifiedList: duplicate id ...").
    /// - Complexity: O(n): the id index is built at once, not by an
    ///   insertion per element.
    @inlinable
    public init<S: Sequence>(_ elements: S) where S.Element == Element {
        self.init()
        // NB: contiguous elements (an array) are read in place; any other
        // sequence is collected once, as the build reads it twice.
        if elements.withContiguousStorageIfAvailable({ _rebuild($0, slots: nil) }) == nil {
            ContiguousArray(elements).withUnsafeBufferPointer { _rebuild($0, slots: nil) }
        }
    }
}

extension IdentifiedList: VersionedValue {
    /// The stamp of the latest write, without recording (every write of the
    /// id index writes the list too).
    @inlinable internal var _version: VersionStamp { _list._stamp }

    /// The list's identity and stamp, for the tracking layer (records
    /// nothing).
    @inlinable public var _trackingIdentity: _TrackingIdentity { _TrackingIdentity(node: _list._nodeID, version: _version) }

    /// Calls `body` with each element (for the tracking layer).
    @inlinable public func _forEachTrackedChild(_ body: (Any) -> Void) {
        _list._forEachLeaf { leaf in for element in leaf.elements { body(element) } }
    }
}

extension IdentifiedList: @unchecked Sendable where Element: Sendable, ID: Sendable {}
