// IdentifiedList's leaf labels and its id index: filing, refiling and
// relabeling after the list's leaves move, the bulk rebuild, the lookup.

extension IdentifiedList {
    /// The low bits of an index entry's label: the element's offset in its
    /// leaf when filed (a hint: offsets shift as the leaf is written, and
    /// the entry is not rewritten for that), under the leaf's label, which
    /// is a multiple of 64.
    @inlinable static var _hintMask: UInt64 { _IdentityIndex.hintMask }

    /// The index entry of an element at `offset` in the leaf labelled
    /// `label`.
    @inlinable @inline(__always)
    static func _entry(_ label: UInt64, offset: Int) -> UInt64 {
        label | UInt64(truncatingIfNeeded: Swift.min(offset, 63))
    }

    /// Leaf labels are below this (2³²: 2²⁶ labels of leaves, a list of
    /// more than a billion elements).
    @inlinable static var _labelLimit: UInt64 { _IdentityIndex.labelLimit }
    /// Spacing between leaf labels assigned at the ends and on rebuilds.
    @inlinable static var _labelStep: UInt64 { 1 &<< 16 }
    /// The label of the first leaf of a rebuilt list.
    @inlinable static var _firstLabel: UInt64 { 1 &<< 31 }

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
        var duplicate: Int? = nil
        var leaf = 0, offset = 0
        label = first
        let index = _IdentityIndex.build(
            count: n, duplicate: &duplicate, sameID: { elements[$0].id == elements[$1].id }
        ) { k in
            // NB: called for k = 0, 1, ... in order.
            while offset == widths[leaf] {
                leaf &+= 1
                offset = 0
                label &+= step
            }
            offset &+= 1
            return _IdentityIndex.entry(_IdentityIndex.fragment(of: elements[k].id), Self._entry(label, offset: offset &- 1))
        }
        guard let index else { return elements[duplicate!].id }
        _labels = index
        _list._replaceTree(root)
        _checkAfterWrite()
        return nil
    }

    /// The first label and the spacing of the labels of `leaves` leaves
    /// rebuilt at once.
    @inlinable
    static func _labels(forLeaves leaves: Int) -> (first: UInt64, step: UInt64) {
        if leaves < (1 << 14) { return (_firstLabel, _labelStep) }
        let step = (_labelLimit &- 1) / UInt64(leaves + 2) & ~_hintMask
        precondition(step > 0, "IdentifiedList: more than 2^26 leaves, past the label space")
        return (step, step)
    }

    /// The position of the element with `id`, its offset in its leaf and
    /// its leaf's label, if any.
    ///
    /// - Complexity: O(log n) levels, then a scan of one leaf, for each
    ///   leaf filed under the id's fragment (one, but for another id that
    ///   shares the fragment: one chance in 2³² per other id in the index
    ///   leaf's share of the fragment's bits).
    @inlinable
    internal func _locate(_ id: ID) -> (position: Int, offset: Int, leafLabel: UInt64)? {
        let fragment = _IdentityIndex.fragment(of: id)
        // NB: the ids compared in the leaf are the list's own reads, not
        // the caller's (an element type that tracks its reads, such as
        // `Versioned`, would otherwise record a read of each element
        // before the one found).
        return _TrackingContext._withReadsUnrecorded {
            _labels.first(fragment) { label -> (position: Int, offset: Int, leafLabel: UInt64)? in
                let leafLabel = label & ~Self._hintMask
                guard let (position, offset) = _list._locate(
                    id, inLeafLabelled: leafLabel, hint: Int(truncatingIfNeeded: label & Self._hintMask))
                else { return nil }
                return (position, offset, leafLabel)
            }
        }
    }

    /// Removes the index entry of `id`, whose element is (or was, before
    /// the current write) in the leaf labelled `leafLabel`.
    @inlinable
    internal mutating func _unfile(_ id: ID, leafLabel: UInt64) {
        let removed = _labels.remove(_IdentityIndex.fragment(of: id), leafLabel: leafLabel)
        precondition(removed, "IdentifiedList: id \(id) missing from its index")
    }

    /// Files the id of the element just inserted at `position`, which has
    /// no index entry, under its leaf's label; when the insertion split a
    /// leaf (`leavesMoved`) or the leaf is not labelled yet, refiles the
    /// leaves around it instead.
    ///
    /// - Complexity: O(log n), plus O(leaf × log n) after a split.
    @inlinable
    internal mutating func _fileInsertion(of id: ID, at position: Int, leavesMoved: Bool, stamp: VersionStamp) {
        if !leavesMoved {
            let leaf = _list._leaf(containing: position)
            if leaf.label != 0 {
                _labels.insert(_IdentityIndex.entry(
                    _IdentityIndex.fragment(of: id), Self._entry(leaf.label, offset: position &- leaf.start)))
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
    /// The leaves whose elements may have moved, from and to, are within
    /// two leaves of the one holding `position`: a split leaves its two
    /// halves side by side, one of them holding `position`; a removal
    /// wrote the leaf holding `position` or the one before it, and a
    /// rebalance moves elements between that leaf and a neighbour. So
    /// the window is that leaf and two on either side, and the entries
    /// whose leaf labels lie between the labels of the leaves around the
    /// window are exactly its elements' (but for the element being
    /// written, which has none then).
    ///
    /// - Complexity: O(5 leaves × log n) lookups; a relabel of w leaves
    ///   O(w × leaf × log n), amortized O(log n) per insertion.
    @inlinable
    internal mutating func _refile(around position: Int, stamp: VersionStamp) {
        let n = _list._count
        let middle = _list._leaf(containing: position)
        var lower = middle.start
        var upper = middle.start &+ middle.width
        for _ in 0 ..< 2 {
            if lower > 0 { lower = _list._leaf(containing: lower &- 1).start }
            if upper < n {
                let next = _list._leaf(containing: upper)
                upper = next.start &+ next.width
            }
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

    /// Files each element's id of the leaves covering `range` (whole,
    /// labelled leaves) under its leaf's label, writing only the entries
    /// that differ.
    ///
    /// The entries of these elements are those whose leaf labels lie
    /// between the labels of the leaves on either side (see
    /// ``_refile(around:stamp:)``). An element whose fragment no other
    /// element there shares has at most one of them: it is relabelled (or
    /// added). The elements sharing a fragment have theirs removed and
    /// added again.
    ///
    /// - Complexity: O(k log k) for k elements, plus O(log n) per entry
    ///   written.
    @inlinable
    internal mutating func _refileElements(_ range: Range<Int>) {
        let n = _list._count
        let lower: UInt64 = range.lowerBound > 0 ? _list._leaf(containing: range.lowerBound &- 1).label : 0
        let upper: UInt64 = range.upperBound < n ? _list._leaf(containing: range.upperBound).label : Self._labelLimit
        // NB: read from a copy of the list (it is not written meanwhile),
        // so that the index is written while the list is read.
        let list = _list
        _TrackingContext._withReadsUnrecorded {
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: range.count) { buffer in
                var buffer = buffer
                var k = 0
                var position = range.lowerBound
                while position < range.upperBound {
                    let leaf = list._leaf(containing: position)
                    var offset = 0
                    list._forEachElement(inLeafContaining: position) { element in
                        buffer[k] = _IdentityIndex.entry(
                            _IdentityIndex.fragment(of: element.id), Self._entry(leaf.label, offset: offset))
                        k &+= 1
                        offset &+= 1
                    }
                    position = leaf.start &+ leaf.width
                }
                precondition(k == range.count, "IdentifiedList: a refiled range not of whole leaves")
                // NB: sorted, the entries of a fragment are side by side.
                buffer.sort()
                var i = 0
                while i < k {
                    let fragment = _IdentityIndex.fragment(ofEntry: buffer[i])
                    var j = i &+ 1
                    while j < k && _IdentityIndex.fragment(ofEntry: buffer[j]) == fragment { j &+= 1 }
                    if j == i &+ 1 {
                        _labels.refile(buffer[i], between: lower, and: upper)
                    } else {
                        _labels.removeAll(fragment, between: lower, and: upper)
                        for entry in buffer[i ..< j] { _labels.insert(entry) }
                    }
                    i = j
                }
            }
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
                } else if (Self._labelLimit &- lo) / (k &+ 1) >= Self._labelStep as UInt64 {
                    step = Self._labelStep
                    first = lo &+ step
                } else {
                    step = (Self._labelLimit &- lo) / (k &+ 1) & ~Self._hintMask
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

    /// Checks the list after a write, in builds with internal checks (its
    /// tree's, see `VersionedList._checkAfterWrite()`), and the index and
    /// their agreement when `_WholeCheck` says so: one decision for both.
    @inlinable @inline(__always)
    internal func _checkAfterWrite() {
        #if FASTSTORE_INTERNAL_CHECKS
        let whole = _WholeCheck.isDue(count: _list._count)
        _list._checkAfterWrite(whole: whole)
        // NB: the check's reads of the ids are not the caller's.
        if whole { _TrackingContext._withReadsUnrecorded { _invariantCheck() } }
        #endif
    }
}
