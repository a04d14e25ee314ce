// Element access for lists whose elements are themselves versioned nodes
// (`VersionedList<Versioned<Row>>`, a tree's `children`). Swift picks this
// more constrained overload statically for such lists.

extension VersionedList where Element: VersionedValue {
    /// The element at `position`, a versioned node.
    ///
    /// Reading records a read of that element. Mutating through the element
    /// (`list[i].title = "x"`) journals the element node's own writes and, when
    /// the element comes back as the same node changed only by journaled
    /// writes, a pass-through write of the list: only readers of the whole
    /// list are affected, not every reader that went through element `i` to
    /// somewhere else in it (those depend on the element node itself). An
    /// element replaced by another node journals a write of element `i`.
    ///
    /// - Precondition: `position` is in `0 ..< count` ("Index out of range").
    /// - Complexity: O(log n) to read; a write copies O(log n) list nodes
    ///   when another version shares them, and the element node pays for its
    ///   own copy.
    @inlinable
    public subscript(position: Int) -> Element {
        get { _readElement(at: position) }
        _modify {
            let (old, new, leaf, offset) = _beginElementWrite(at: position)
            let access = _Tracking.beginChildAccess(leaf.elements[offset])
            defer {
                _endElementWrite(at: position)
                // NB: the list took a fresh stamp before the yield (the
                // path copy needs it), so even an untouched element is a
                // journaled write: a pass-through, like a written-through one.
                switch _Tracking.endChildAccess(access, leaf.elements[offset]) {
                case .untouched, .passThrough:
                    _Tracking.journalWrite(_nodeID, from: old, to: new, .passThrough)
                case .replaced:
                    _Tracking.journalElementValueWrite(_nodeID, from: old, to: new, position)
                }
                _checkAfterWrite()
            }
            yield &leaf.elements[offset]
        }
        set { _writeElement(newValue, at: position) }
    }
}
