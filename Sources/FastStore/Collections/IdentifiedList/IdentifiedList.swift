/// An ordered list of identifiable elements (the shape of a table's rows):
/// random access by position, lookup by id, unique ids, stored as persistent
/// trees with a version stamp per node.
///
/// Positions live in a ``VersionedList`` of the elements, whose leaves carry
/// order labels (increasing along the list); an id index (a hash trie with
/// buckets for leaves, no stamps) maps each id to the label of the leaf
/// holding its element. Finding an id is an index lookup, a descent by
/// label (O(log n) levels), then a scan of one leaf: no bookkeeping per
/// element beyond its index entry.
///
/// For FastStore's consumers: reading by id records that id; reading by
/// position, count, iteration, comparison or description records the whole
/// list. Writing, inserting or removing by id journals that id; reordering
/// (sort, remove where) journals a structural write.
public struct IdentifiedList<Element: Identifiable> {
    public typealias ID = Element.ID

    @usableFromInline var _list: VersionedList<Element>
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
        _list._forEachLeaf { leaf in for element in leaf.elements { body(element) } }
    }
}

extension IdentifiedList: @unchecked Sendable where Element: Sendable, ID: Sendable {}

// MARK: Labels

extension IdentifiedList {
    /// The low bits of an index entry: the element's offset in its leaf
    /// when filed (a hint: offsets shift as the leaf is written, and the
    /// entry is not rewritten for that), under the leaf's label, which is a
    /// multiple of 64.
    @inlinable static var _hintMask: UInt64 { 63 }

    /// The index entry of an element at `offset` in the leaf labelled
    /// `label`.
    @inlinable @inline(__always)
    static func _entry(_ label: UInt64, offset: Int) -> UInt64 {
        label | UInt64(truncatingIfNeeded: Swift.min(offset, 63))
    }

    /// Spacing between leaf labels assigned at the ends and on rebuilds.
    @inlinable static var _labelStep: UInt64 { 1 &<< 32 }
    /// The label of the first leaf of a rebuilt list.
    @inlinable static var _firstLabel: UInt64 { 1 &<< 62 }

    /// Replaces the contents with `elements` (keeping their slots when given,
    /// fresh identities otherwise), relabeling everything.
    ///
    /// - Complexity: O(n).
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
    ///
    /// - Complexity: O(n): the leaves are built, labelled in order, then
    ///   the index is built from their widths, with no array of labels.
    @inlinable
    internal mutating func _rebuildUnlessDuplicate(_ elements: UnsafeBufferPointer<Element>, slots: ContiguousArray<_ListSlot>?) -> ID? {
        let stamp = VersionStamp.next()
        let n = elements.count
        let root = slots.map { _ListNode.build(ContiguousArray(elements), slots: $0, stamp: stamp) }
            ?? _ListNode.build(elements, stamp: stamp)
        var widths = ContiguousArray<Int>()
        root.forEachLeaf { widths.append($0.width) }
        let (first, step) = Self._labels(forLeaves: widths.count)
        var label = first
        root.forEachLeaf { leaf in
            leaf.label = label
            label &+= step
        }
        var duplicate: ID? = nil
        var leaf = 0, offset = 0
        label = first
        let index = _IdentityIndex<ID>.build(count: n, duplicate: &duplicate) { k in
            // NB: called for k = 0, 1, ... in order.
            while offset == widths[leaf] {
                leaf &+= 1
                offset = 0
                label &+= step
            }
            offset &+= 1
            return _IdentityEntry(id: elements[k].id, label: Self._entry(label, offset: offset &- 1))
        }
        guard let index else { return duplicate }
        _labels = index
        _list._replaceTree(root)
        _checkAfterWrite()
        return nil
    }

    /// The first label and the spacing of the labels of `leaves` leaves
    /// rebuilt at once.
    @inlinable
    static func _labels(forLeaves leaves: Int) -> (first: UInt64, step: UInt64) {
        if leaves < (1 << 20) { return (_firstLabel, _labelStep) }
        let step = UInt64.max / UInt64(leaves + 2) & ~_hintMask
        return (step, step)
    }

    /// The position of the element with `id` and its offset in its leaf,
    /// if any.
    ///
    /// - Complexity: O(log n) levels, then a scan of one leaf.
    @inlinable
    internal func _locate(_ id: ID) -> (position: Int, offset: Int)? {
        guard let entry = _labels.label(for: id) else { return nil }
        // NB: the ids compared in the leaf are the list's own reads, not
        // the caller's (an element type that tracks its reads, such as
        // `Versioned`, would otherwise record a read of each element
        // before the one found).
        return _TrackingContext._withReadsUnrecorded {
            _list._locate(id, inLeafLabelled: entry & ~Self._hintMask, hint: Int(truncatingIfNeeded: entry & Self._hintMask))
        }
    }

    /// Files the id of the element just inserted at `position` under its
    /// leaf's label; when the insertion split a leaf (`leavesMoved`) or the
    /// leaf is not labelled yet, refiles the leaves around it instead.
    ///
    /// - Complexity: O(log n), plus O(leaf × log n) after a split.
    @inlinable
    internal mutating func _fileInsertion(of id: ID, at position: Int, leavesMoved: Bool, stamp: VersionStamp) {
        if !leavesMoved {
            let leaf = _list._leaf(containing: position)
            if leaf.label != 0 {
                _labels.setLabel(Self._entry(leaf.label, offset: position &- leaf.start), for: id, check: false)
                return
            }
        }
        _refile(around: position, stamp: stamp)
    }

    /// After a split or a rebalance of leaves around `position` (a valid
    /// position): gives every leaf there a label that keeps labels
    /// increasing (relabeling a wider window when the gap is used up), and
    /// files each of their elements' ids under its leaf's label.
    ///
    /// The leaves whose elements may have moved are the one holding
    /// `position` and its neighbours: a split leaves its two halves side
    /// by side, a rebalance moves elements between two neighbours, and
    /// one of them holds `position`.
    ///
    /// - Complexity: O(3 leaves × log n) lookups; a relabel of w leaves
    ///   O(w × leaf × log n), amortized O(log n) per insertion.
    @inlinable
    internal mutating func _refile(around position: Int, stamp: VersionStamp) {
        let n = _list._count
        let middle = _list._leaf(containing: position)
        var lower = middle.start
        var upper = middle.start &+ middle.width
        if lower > 0 { lower = _list._leaf(containing: lower &- 1).start }
        if upper < n {
            let next = _list._leaf(containing: upper)
            upper = next.start &+ next.width
        }
        if _leafLabelsIncrease(lower ..< upper) {
            _refileElements(lower ..< upper)
        } else {
            _relabelLeaves(around: lower ..< upper, stamp: stamp)
        }
    }

    /// Whether the leaves covering `range` (whole leaves) and the leaves
    /// on either side of it have labels, increasing.
    @inlinable
    internal func _leafLabelsIncrease(_ range: Range<Int>) -> Bool {
        let n = _list._count
        var position = range.lowerBound > 0 ? range.lowerBound &- 1 : 0
        let end = Swift.min(range.upperBound &+ 1, n)
        var previous: UInt64 = 0
        while position < end {
            let leaf = _list._leaf(containing: position)
            if leaf.label <= previous { return false }
            previous = leaf.label
            position = leaf.start &+ leaf.width
        }
        return true
    }

    /// Files each element's id of the leaves covering `range` under its
    /// leaf's label (writing only the entries that differ).
    @inlinable
    internal mutating func _refileElements(_ range: Range<Int>) {
        // NB: read from a copy of the list (it is not written meanwhile),
        // so that the index is written while the list is read.
        let list = _list
        _TrackingContext._withReadsUnrecorded { _refileElements(range, of: list) }
    }

    /// ``_refileElements(_:)`` reading `list`.
    @inlinable
    internal mutating func _refileElements(_ range: Range<Int>, of list: VersionedList<Element>) {
        var position = range.lowerBound
        while position < range.upperBound {
            let leaf = list._leaf(containing: position)
            var offset = 0
            list._forEachElement(inLeafContaining: position) { element in
                let id = element.id
                // NB: an entry under the right label keeps its hint.
                if let entry = _labels.label(for: id), entry & ~Self._hintMask == leaf.label {
                } else {
                    _labels.setLabel(Self._entry(leaf.label, offset: offset), for: id, check: false)
                }
                offset &+= 1
            }
            position = leaf.start &+ leaf.width
        }
    }

    /// Spreads new labels over the leaves covering `range` (whole leaves),
    /// evenly in the gap between the labels of the leaves on either side,
    /// doubling the window until that leaves a gap of at least 1,024 (or
    /// the window is the whole list), then refiles their elements.
    @inlinable
    internal mutating func _relabelLeaves(around range: Range<Int>, stamp: VersionStamp) {
        let n = _list._count
        var lower = range.lowerBound
        var upper = range.upperBound
        while true {
            let lo: UInt64 = lower > 0 ? _list._leaf(containing: lower &- 1).label : 0
            let hi: UInt64? = upper < n ? _list._leaf(containing: upper).label : nil
            var leaves = 0
            var position = lower
            while position < upper {
                let leaf = _list._leaf(containing: position)
                leaves &+= 1
                position = leaf.start &+ leaf.width
            }
            let whole = lower == 0 && upper == n
            // NB: a neighbour not labelled (0) is not a bound: the window
            // grows over it.
            var bounded = true
            if lower > 0 && lo == 0 { bounded = false }
            if let hi, hi == 0 { bounded = false }
            var first: UInt64 = 0, step: UInt64 = 0
            if bounded {
                let k = UInt64(leaves)
                if let hi {
                    if hi > lo {
                        step = (hi &- lo) / (k &+ 1) & ~Self._hintMask
                        let ends: UInt64 = k &+ 1
                        if lower == 0, hi / ends >= Self._labelStep {
                            step = Self._labelStep
                            first = hi &- k &* step
                        } else {
                            first = lo &+ step
                        }
                    }
                } else if lower == 0 {
                    (first, step) = Self._labels(forLeaves: leaves)
                } else if (UInt64.max &- lo) / (k &+ 1) >= Self._labelStep as UInt64 {
                    step = Self._labelStep
                    first = lo &+ step
                } else {
                    step = (UInt64.max &- lo) / (k &+ 1) & ~Self._hintMask
                    first = lo &+ step
                }
            }
            if bounded, step >= 1024 || (whole && step >= 64) {
                _list._makeRootUnique(stamp: stamp)
                var label = first
                position = lower
                while position < upper {
                    let leaf = _list._leaf(containing: position)
                    _list._setLabel(label, ofLeafContaining: position, stamp: stamp)
                    label &+= step
                    position = leaf.start &+ leaf.width
                }
                _refileElements(lower ..< upper)
                return
            }
            precondition(!whole, "IdentifiedList: label space exhausted")
            let width = Swift.max(upper &- lower, 1)
            lower = lower > width ? _list._leaf(containing: lower &- width).start : 0
            if upper &+ width < n {
                let leaf = _list._leaf(containing: upper &+ width)
                upper = leaf.start &+ leaf.width
            } else {
                upper = n
            }
        }
    }

    /// Checks the list, the index and their agreement after a write, in
    /// builds with internal checks (up to 8,192 elements).
    @inlinable @inline(__always)
    internal func _checkAfterWrite() {
        #if FASTSTORE_INTERNAL_CHECKS
        // NB: the check's reads of the ids are not the caller's.
        if _list._count <= 8192 { _TrackingContext._withReadsUnrecorded { _invariantCheck() } }
        #endif
    }
}
