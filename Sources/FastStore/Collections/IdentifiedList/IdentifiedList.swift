/// An ordered list of identifiable elements (the shape of a table's rows):
/// random access by position, lookup by id, unique ids, stored as persistent
/// trees with a version stamp per node.
///
/// Positions live in a ``VersionedList`` of the elements, each with an order
/// label; an id index (a hash trie with buckets for leaves, no stamps)
/// maps each id to its label. Finding an id is an index lookup then a
/// descent by label: O(log n) levels, no scan.
///
/// For FastStore's consumers: reading by id records that id; reading by
/// position, count, iteration, comparison or description records the whole
/// list. Writing, inserting or removing by id journals that id; reordering
/// (sort, remove where) journals a structural write.
public struct IdentifiedList<Element: Identifiable> {
    public typealias ID = Element.ID

    @usableFromInline var _list: VersionedList<_IdentifiedEntry<Element>>
    @usableFromInline var _labels: _IdentityIndex<ID>

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
        _list._forEachLeaf { leaf in for entry in leaf.elements { body(entry.element) } }
    }
}

extension IdentifiedList: @unchecked Sendable where Element: Sendable, ID: Sendable {}

// MARK: Labels

extension IdentifiedList {
    /// Spacing between labels assigned at the ends and on rebuilds.
    @inlinable static var _labelStep: UInt64 { 1 &<< 32 }
    /// The label of the first element of a rebuilt list.
    @inlinable static var _firstLabel: UInt64 { 1 &<< 62 }

    /// Replaces the contents with `elements` (keeping their slots when given,
    /// fresh identities otherwise), relabeling everything.
    ///
    /// - Complexity: O(n). `elements` is read twice, in order (its ids for
    ///   the index, then its elements into the list's leaves), with no
    ///   array of labelled entries between.
    @inlinable
    internal mutating func _rebuild(_ elements: ContiguousArray<Element>, slots: ContiguousArray<_ListSlot>?) {
        elements.withUnsafeBufferPointer { _rebuild($0, slots: slots) }
    }

    /// ``_rebuild(_:slots:)`` from a buffer.
    ///
    /// NB: reads through the buffer's pointer, with no collection wrapper
    /// (`lazy`, `enumerated`): unspecialized, as `init(from:)` runs it,
    /// each wrapper's subscript cost a heap-allocated coroutine frame per
    /// element.
    @inlinable
    internal mutating func _rebuild(_ elements: UnsafeBufferPointer<Element>, slots: ContiguousArray<_ListSlot>?) {
        let duplicate = _rebuildUnlessDuplicate(elements, slots: slots)
        _usagePrecondition(duplicate == nil, "IdentifiedList: duplicate id \(duplicate!)")
    }

    /// ``_rebuild(_:slots:)``, or, when two elements have the same id, that
    /// id (the list left as it was).
    @inlinable
    internal mutating func _rebuildUnlessDuplicate(_ elements: UnsafeBufferPointer<Element>, slots: ContiguousArray<_ListSlot>?) -> ID? {
        let stamp = VersionStamp.next()
        let n = elements.count
        let step = n < (1 << 20) ? Self._labelStep : UInt64.max / UInt64(n + 2) / 2
        let labelled = _LabelledElements(elements, first: Self._firstLabel, step: step)
        var duplicate: ID? = nil
        let index = _IdentityIndex<ID>.build(count: n, duplicate: &duplicate) { k in
            _IdentityEntry(id: labelled.base[k].id, label: labelled.label(k))
        }
        guard let index else { return duplicate }
        _labels = index
        let root = slots.map { _ListNode.build(ContiguousArray(labelled), slots: $0, stamp: stamp) }
            ?? _ListNode.build(labelled, stamp: stamp)
        _list._replaceTree(root)
        _list._checkAfterWrite()
        _labels._checkAfterWrite()
        return nil
    }

    /// The label of the entry at `position`.
    @inlinable
    internal func _label(at position: Int) -> UInt64 { _list._unrecordedElement(at: position).label }

    /// A free label for an insertion at `position`, relabeling neighbours
    /// when the gap there is used up.
    ///
    /// - Complexity: O(log n) amortized; a relabel of w neighbours costs
    ///   O(w log n).
    @inlinable
    internal mutating func _freeLabel(forInsertionAt position: Int) -> UInt64 {
        let n = _list._count
        if n == 0 { return Self._firstLabel }
        let step = Self._labelStep
        let prev: UInt64 = position > 0 ? _label(at: position - 1) : 0
        let next: UInt64 = position < n ? _label(at: position) : .max
        if position == n, prev < UInt64.max - 2 * step { return prev + step }
        if position == 0, next > 2 * step { return next - step }
        if next - prev >= 2 { return prev + (next - prev) / 2 }
        _relabel(around: position)
        let p: UInt64 = position > 0 ? _label(at: position - 1) : 0
        let q: UInt64 = position < n ? _label(at: position) : .max
        precondition(q - p >= 2, "IdentifiedList: relabeling failed")
        return p + (q - p) / 2
    }

    /// Spreads the labels of a window of entries around `position` evenly
    /// over the label range the window spans, doubling the window until
    /// that leaves a gap of at least 1,024 between labels.
    @inlinable
    internal mutating func _relabel(around position: Int) {
        let n = _list._count
        var width = 32
        while true {
            let lower = Swift.max(0, position - width / 2)
            let upper = Swift.min(n, lower + width)
            let lo: UInt64 = lower > 0 ? _label(at: lower - 1) : 0
            let hi: UInt64 = upper < n ? _label(at: upper) : .max
            let gap = (hi - lo) / UInt64(upper - lower + 2)
            if gap >= 1024 || (lower == 0 && upper == n) {
                precondition(gap >= 2, "IdentifiedList: label space exhausted")
                let stamp = VersionStamp.next()
                _list._makeRootUnique(stamp: stamp)
                var label = lo
                for p in lower ..< upper {
                    label += gap
                    // NB: a relabel is bookkeeping, not a write of the
                    // element: its slot's write stamp is left alone.
                    let (leaf, offset) = _list._uniqueLeaf(containing: p, stamp: stamp)
                    leaf.elements[offset].label = label
                    _labels.setLabel(label, for: leaf.elements[offset].element.id, check: false)
                }
                _list._checkAfterWrite()
                _labels._checkAfterWrite()
                return
            }
            width *= 2
        }
    }
}

/// A buffer's elements with the labels a rebuild gives them, in order: a
/// sequence that is its own iterator, reading through the buffer's pointer.
@usableFromInline
internal struct _LabelledElements<Element: Identifiable>: Sequence, IteratorProtocol {
    @usableFromInline let base: UnsafePointer<Element>
    @usableFromInline let count: Int
    @usableFromInline let first: UInt64
    @usableFromInline let step: UInt64
    @usableFromInline var position = 0

    @inlinable
    init(_ elements: UnsafeBufferPointer<Element>, first: UInt64, step: UInt64) {
        // NB: an empty buffer may have no base address; nothing is read then.
        base = elements.baseAddress ?? UnsafePointer(bitPattern: MemoryLayout<Element>.alignment)!
        count = elements.count
        self.first = first
        self.step = step
    }

    /// The label of the `k`th element.
    @inlinable @inline(__always) func label(_ k: Int) -> UInt64 { first &+ UInt64(k) &* step }

    @inlinable var underestimatedCount: Int { count &- position }

    // NB: forced inline, so that the build's loop, unspecialized as
    // `init(from:)` runs it, looks the entry's type up once, not per element.
    @inlinable @inline(__always)
    mutating func next() -> _IdentifiedEntry<Element>? {
        guard position < count else { return nil }
        defer { position &+= 1 }
        return _IdentifiedEntry(label: label(position), element: base[position])
    }
}
