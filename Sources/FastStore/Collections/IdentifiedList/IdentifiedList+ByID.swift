// `IdentifiedList[id:]`: an element read, written in its slot, or
// removed by its id.

extension IdentifiedList {
    /// The element with `id`, or nil. Setting an element updates it in place
    /// (or appends it when the id is new); setting nil removes it.
    ///
    /// Reading records that id; writing journals it.
    ///
    /// - Precondition: a set element has the id it is set for.
    /// - Complexity: O(log n) levels; a write copies one node per level of
    ///   each tree when shared.
    @inlinable
    public subscript(id id: ID) -> Element? {
        get {
            _Tracking.recordElementRead(_list._nodeID, id)
            guard let position = _position(of: id) else { return nil }
            return _list._unrecordedElement(at: position)
        }
        set {
            guard let newValue else {
                remove(id: id)
                return
            }
            Self._checkID(of: newValue, setFor: id)
            if let position = _position(of: id) {
                _update(newValue, at: position)
            } else {
                insert(newValue, at: _list._count)
            }
        }
        _modify {
            guard let (position, _, leafLabel) = _locate(id) else {
                var element: Element? = nil
                // NB: in a `defer`, so that an element set before the
                // caller throws is kept, as `Dictionary` keeps it.
                defer { if element != nil { _appendSet(element.take().unsafelyUnwrapped, for: id) } }
                yield &element
                return
            }
            // NB: the element is moved out of its slot (not copied), so a
            // mutation through it (`list[id: x]?.tags.append(t)`) finds its
            // storage unique, and goes back into the same slot: a write of
            // that element alone, on the element path (`list[i]`'s: in a
            // draining store, the path's copies borrow; see
            // `_ListNode+Lending.swift`), journaled as a write of the id's
            // value. The slot is uninitialized while the caller holds the
            // element; nothing reads it meanwhile (the list is the caller's
            // exclusive access).
            let (old, new, leaf, offset) = _list._beginElementWrite(at: position)
            let slot = leaf._elementsPointer + offset
            var element: Element? = slot.move()
            defer {
                if let written = element.take() {
                    Self._checkID(of: written, setFor: id)
                    slot.initialize(to: written)
                    _list._endElementWrite(at: position)
                    _Tracking.journalElementValueWrite(_list._nodeID, from: old, to: new, id)
                    _checkAfterWrite()
                } else {
                    _removeVacated(id, at: position, slot: slot, leafLabel: leafLabel, from: old)
                }
            }
            yield &element
        }
    }

    /// The rule of `self[id:]`'s setter: the element set for `id` has that
    /// id (a usage precondition).
    @inlinable @inline(__always)
    internal static func _checkID(
        of element: Element, setFor id: ID, file: StaticString = #file, line: UInt = #line
    ) {
        _usagePrecondition(
            element.id == id, "IdentifiedList: element with id \(element.id) set for id \(id)", file: file, line: line)
    }

    /// Appends `element`, set through `self[id:]`'s `_modify` for `id`,
    /// which no element had.
    // NB: not inlined (nor `_removeVacated`): the rare paths kept out of
    // `_modify`, so that it stays small enough for a caller to inline it
    // with the `Versioned` member access around it (a key path projected
    // at run time otherwise).
    @inlinable @inline(never)
    internal mutating func _appendSet(_ element: Element, for id: ID) {
        Self._checkID(of: element, setFor: id)
        insert(element, at: _list._count)
    }

    /// Removes the element with `id` at `position`, whose slot (`slot`,
    /// in a leaf made unique by an element write stamped after `old`) the
    /// caller of `self[id:]`'s `_modify` emptied by setting nil.
    ///
    /// The slot is filled again with a copy of another element, so that
    /// the removal moves a valid value out (and releases it); the list's
    /// only element is dropped from its root leaf as it is.
    ///
    /// - Complexity: O(log n) levels, as `remove(id:)`.
    @inlinable @inline(never)
    internal mutating func _removeVacated(
        _ id: ID, at position: Int, slot: UnsafeMutablePointer<Element>, leafLabel: UInt64, from old: VersionStamp
    ) {
        guard _list._count > 1 else {
            // NB: a root leaf of one, unique since the element write began
            // (a root leaf never borrows): it forgets the emptied slot.
            let root = _list._root
            #if FASTSTORE_INTERNAL_CHECKS
            precondition(root.height == 0 && root.width == 1, "IdentifiedList: a list of one not a root leaf of one")
            #endif
            root.count = 0
            root._closeGap(at: 0, 1)
            _unfile(id, leafLabel: leafLabel)
            _Tracking.journalElementWrite(_list._nodeID, from: old, to: _version, id)
            _checkAfterWrite()
            return
        }
        slot.initialize(to: _list._root.element(at: position == 0 ? 1 : 0))
        _list._endElementWrite(at: position)
        _Tracking.journalElementValueWrite(_list._nodeID, from: old, to: _version, id)
        _ = _remove(at: position, id: id)
    }

    /// Writes `element` over the entry at `position`, which has the same id,
    /// and journals it as a write of that element's value.
    @inlinable
    internal mutating func _update(_ element: Element, at position: Int) {
        let old = _version
        let new = VersionStamp.next()
        _list._makeRootUniqueForElementWrite(stamp: new)
        let (leaf, offset) = _list._uniqueLeaf(containing: position, stamp: new)
        leaf.setWritten(offset, stamp: new.rawValue)
        leaf.elements[offset] = element
        _list._endElementWrite(at: position)
        _Tracking.journalElementValueWrite(_list._nodeID, from: old, to: new, element.id)
        _list._checkAfterWrite()
    }
}
