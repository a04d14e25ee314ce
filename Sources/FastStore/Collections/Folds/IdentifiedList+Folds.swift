// Attached folds of an identified list: its list of elements keeps them
// (see `VersionedList+Folds.swift`).

extension IdentifiedList {
    /// A list of `elements` with the folds `summaries` attached (see
    /// ``attach(_:)``).
    ///
    /// - Precondition: the ids are unique.
    /// - Complexity: O(n log n), plus O(n) per fold.
    @inlinable
    public init<S: Sequence>(_ elements: S, folds summaries: [any ListSummary<Element>.Type])
    where S.Element == Element {
        self.init(elements)
        for summary in summaries { attach(summary) }
    }

    /// An empty list with the folds `summaries` attached: they are kept
    /// through every element added later.
    ///
    /// - Complexity: O(folds).
    @inlinable
    public init(folds summaries: [any ListSummary<Element>.Type]) {
        self.init(EmptyCollection<Element>(), folds: summaries)
    }

    /// Attaches the fold `summary` (see ``VersionedList/attach(_:)``): kept
    /// per tree node through every write, insertion, removal, move, sort
    /// and rebuild, and read by ``fold(_:)`` in O(1). Not a write.
    ///
    /// - Complexity: O(n) summaries, once.
    @inlinable
    public mutating func attach<S: ListSummary>(_ summary: S.Type) where S.Element == Element {
        _list._attach(S.self)
    }

    /// Removes the fold `summary`, if attached.
    @inlinable
    public mutating func detach<S: ListSummary>(_ summary: S.Type) where S.Element == Element {
        _list._detach(S.self)
    }

    /// Whether the fold `summary` is attached. Records nothing.
    @inlinable
    public func isAttached<S: ListSummary>(_ summary: S.Type) -> Bool where S.Element == Element {
        _list.isAttached(S.self)
    }

    /// The summary `S` of all the elements, in list order. Records a read of
    /// the whole list (see ``VersionedList/fold(_:)``).
    ///
    /// - Complexity: O(1) when attached, O(n) otherwise.
    @inlinable
    public func fold<S: ListSummary>(_ summary: S.Type) -> S.Value where S.Element == Element {
        _Tracking.recordWholeRead(_list._nodeID)
        return _list._fold(S.self)
    }
}
