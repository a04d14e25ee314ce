// Attached folds: summaries (`ListSummary`) kept per tree node and updated
// along the written path, read in O(1).

extension VersionedList {
    /// Attaches the fold `summary`: from now on this list (and every version
    /// written from it) keeps `summary` per tree node, updated on every
    /// write, so that ``fold(_:)`` reads it in O(1). Does nothing when
    /// already attached.
    ///
    /// Attaching is not a write: the list's value, ``version`` and
    /// consumers are unaffected, and versions taken before keep their own
    /// folds. Folds are not part of the value (`==`, `Codable`, the diff
    /// ignore them).
    ///
    ///     var scores = VersionedList(results)
    ///     scores.attach(TotalPoints.self)          // O(n), once
    ///     scores[7].points += 3                    // O(log n), fold included
    ///     scores.fold(TotalPoints.self)            // O(1)
    ///
    /// - Complexity: O(n) summaries; copies the tree's branches (about one
    ///   node per 256 to 1,024 elements) when shared, never its leaves.
    ///   Afterwards a write of one element, an insertion or a removal
    ///   updates O(log n) summaries per attached fold: the nodes on its
    ///   path, one fold over a leaf (at most 64 elements) and, per branch,
    ///   a combine of its at most 16 children's summaries.
    @inlinable
    public mutating func attach<S: ListSummary>(_ summary: S.Type) where S.Element == Element {
        _attach(summary)
    }

    /// Removes the fold `summary`, if attached.
    ///
    /// - Complexity: O(n) for the other folds' columns, which are rebuilt.
    @inlinable
    public mutating func detach<S: ListSummary>(_ summary: S.Type) where S.Element == Element {
        _detach(summary)
    }

    /// Whether the fold `summary` is attached. Records nothing (attachment
    /// is not part of the value).
    ///
    /// - Complexity: O(folds attached).
    @inlinable
    public func isAttached<S: ListSummary>(_ summary: S.Type) -> Bool where S.Element == Element {
        _root.folds?.find(ObjectIdentifier(summary)) != nil
    }

    /// The summary `S` of all the elements, in list order: `S.identity`
    /// combined with `S.summarize` of each element.
    ///
    /// Records a read of the whole list for FastStore's consumers (as
    /// ``count`` does): a selector returning a fold is delivered when the
    /// list is written, and its result compared as any selection.
    ///
    /// - Complexity: O(1) when `S` is attached (``attach(_:)``): the root's
    ///   stored summary, or a fold over its at most 64 elements while the
    ///   root is a leaf. O(n) otherwise.
    @inlinable
    public func fold<S: ListSummary>(_ summary: S.Type) -> S.Value where S.Element == Element {
        _Tracking.recordWholeRead(_nodeID)
        return _fold(summary)
    }

    /// ``fold(_:)`` without recording.
    @inlinable
    internal func _fold<S: ListSummary>(_ summary: S.Type) -> S.Value where S.Element == Element {
        if let value = _root.foldValue(summary) { return value }
        var value = S.identity
        _root.forEachLeaf { leaf in value = S.combine(value, _ListSummaryColumn<S>.fold(leaf: leaf)) }
        return value
    }

    @usableFromInline
    internal mutating func _attach<S: ListSummary>(_ summary: S.Type) where S.Element == Element {
        let id = ObjectIdentifier(summary)
        if _root.folds?.find(id) != nil { return }
        let kernels = S._foldKernels() as? _SummaryKernels<S> ?? _SummaryKernels<S>()
        let column: _ListFoldColumn<Element> = _ListSummaryColumn<S>(kernels: kernels)
        let chain: _ListFoldColumn<Element>
        if let existing = _root.folds?.emptiedChain() {
            var tail = existing
            while let next = tail.next { tail = next }
            tail.next = column
            chain = existing
        } else {
            chain = column
        }
        _ListNode.setFolds(&_root, chain, isRoot: true)
        _checkAfterWrite()
    }

    @usableFromInline
    internal mutating func _detach<S: ListSummary>(_ summary: S.Type) where S.Element == Element {
        let id = ObjectIdentifier(summary)
        guard let folds = _root.folds, folds.find(id) != nil else { return }
        _ListNode.setFolds(&_root, folds.emptiedChain(removing: id), isRoot: true)
        _checkAfterWrite()
    }
}

extension VersionedList {
    /// A list of the elements of `elements` with the folds `summaries`
    /// attached (see ``attach(_:)``).
    ///
    /// - Complexity: O(n) per fold.
    @inlinable
    public init<S: Sequence>(_ elements: S, folds summaries: [any ListSummary<Element>.Type])
    where S.Element == Element {
        self.init(elements)
        for summary in summaries { _attach(summary) }
    }

    /// An empty list with the folds `summaries` attached: they are kept
    /// through every element added later.
    ///
    /// - Complexity: O(folds).
    @inlinable
    public init(folds summaries: [any ListSummary<Element>.Type]) {
        self.init(EmptyCollection<Element>(), folds: summaries)
    }
}
