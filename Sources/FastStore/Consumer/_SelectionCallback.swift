/// How a consumer of an `Equatable` selection is called when the
/// selection changes: one type per callback shape of the `add` overloads,
/// each holding the caller's closure as it is (an adapter closure would be
/// one more allocation per consumer).
///
/// NB: types rather than the cases of an enum, whose tag would take a word
/// of the handle.
@usableFromInline
internal protocol _SelectionCallback {
    associatedtype Selection
    /// Calls the closure with what its shape takes of `old` and `new`.
    func callAsFunction(_ old: Selection?, _ new: Selection)
}

/// With the previous selection (`nil` the first time) and the new one.
@usableFromInline
internal struct _OldAndNewCallback<Selection>: _SelectionCallback {
    @usableFromInline let body: (Selection?, Selection) -> Void
    @inlinable init(_ body: @escaping (Selection?, Selection) -> Void) { self.body = body }
    @inlinable func callAsFunction(_ old: Selection?, _ new: Selection) { body(old, new) }
}

/// With the new selection.
@usableFromInline
internal struct _NewCallback<Selection>: _SelectionCallback {
    @usableFromInline let body: (Selection) -> Void
    @inlinable init(_ body: @escaping (Selection) -> Void) { self.body = body }
    @inlinable func callAsFunction(_ old: Selection?, _ new: Selection) { body(new) }
}

/// With the previous and the new selection, when there is a previous one
/// (from the second selection on, or always after a baseline).
@usableFromInline
internal struct _PreviousAndNewCallback<Selection>: _SelectionCallback {
    @usableFromInline let body: (Selection, Selection) -> Void
    @inlinable init(_ body: @escaping (Selection, Selection) -> Void) { self.body = body }
    @inlinable func callAsFunction(_ old: Selection?, _ new: Selection) { if let old { body(old, new) } }
}
