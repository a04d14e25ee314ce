/// An array-like, random-access list stored as a persistent tree, with a
/// version stamp per node.
///
/// Copies share all their nodes. A write copies only the nodes on the path to
/// what it changes (O(log n) nodes) when another version still holds them,
/// and writes in place when the list is the only holder. Versions kept alive
/// (a consumer's old value, an undo history) never see later writes.
///
/// Because versions share nodes, comparing two versions (`==`) and finding
/// what changed between them (``difference(from:)-5kdr5``) skip every node
/// they share: the cost follows the changes, not the length.
///
///     var feed: VersionedList<Post> = ...
///     let before = feed
///     feed[3].likes += 1                  // copies ~4 nodes, not the feed
///     let changes = feed.difference(from: before)
///     // changes.updated == [3]
///
/// Elements live in leaves of up to 64 elements in contiguous storage, so
/// iteration runs over contiguous chunks.
///
/// A list has a stable ``nodeID`` (kept by its copies and by every version
/// written from it) and a ``version`` stamp that every write renews. FastStore's
/// consumers track what a selector reads from it: an element read by index
/// records that element, a count, iteration, comparison or description
/// records the whole list.
public struct VersionedList<Element> {
    @usableFromInline var _root: _ListNode<Element>
    @usableFromInline var _nodeID: NodeID

    @inlinable
    internal init(_root: _ListNode<Element>, nodeID: NodeID) {
        self._root = _root
        self._nodeID = nodeID
    }

    /// An empty list with a new identity.
    ///
    /// - Complexity: O(1).
    @inlinable
    public init() {
        self.init(
            _root: _ListNode.leaf(EmptyCollection(), slots: EmptyCollection(), stamp: VersionStamp.next()),
            nodeID: NodeID.make())
    }

    /// A list of the elements of `elements`, in order, with a new identity.
    ///
    /// - Complexity: O(n).
    @inlinable
    public init<S: Sequence>(_ elements: S) where S.Element == Element {
        self.init(
            _root: _ListNode.build(elements, stamp: VersionStamp.next()),
            nodeID: NodeID.make())
    }

    /// A list of `count` copies of `repeatedValue`.
    ///
    /// - Complexity: O(n).
    @inlinable
    public init(repeating repeatedValue: Element, count: Int) {
        self.init(ContiguousArray(repeating: repeatedValue, count: count))
    }
}

/// A `VersionedList` of any element type, for `_TrackingIdentity.reader(for:)`,
/// which reads its identity at fixed offsets when ``_identityAtFixedOffsets``.
@usableFromInline
internal protocol _VersionedListLayout {
    /// Whether the list is its root node's reference then its `NodeID`, and
    /// the root's stamp is the first word after the object's two: checked
    /// once per reader, on a real list.
    static var _identityAtFixedOffsets: Bool { get }
}

extension VersionedList: _VersionedListLayout {
    @usableFromInline
    static var _identityAtFixedOffsets: Bool {
        guard MemoryLayout<Self>.size == 16,
              MemoryLayout<Self>.offset(of: \._root) == 0,
              MemoryLayout<Self>.offset(of: \._nodeID) == 8,
              MemoryLayout<_ListNodeHeader<Element>>.offset(of: \.stamp) == 0
        else { return false }
        let list = VersionedList()
        let object = UnsafeRawPointer(Unmanaged.passUnretained(list._root).toOpaque())
        let header = list._root.withUnsafeMutablePointerToHeader { UnsafeRawPointer($0) }
        return withExtendedLifetime(list) { header - object == 16 }
    }
}

extension VersionedList: VersionedValue {
    /// The list's identity and stamp, for the tracking layer (records
    /// nothing).
    @inlinable public var _trackingIdentity: _TrackingIdentity { _TrackingIdentity(node: _nodeID, version: _root.stamp) }

    /// Calls `body` with each element (for the tracking layer).
    @inlinable public func _forEachTrackedChild(_ body: (Any) -> Void) {
        _root.forEachLeaf { leaf in for element in leaf.elements { body(element) } }
    }
}

extension VersionedList: @unchecked Sendable where Element: Sendable {}

// MARK: Write plumbing

extension VersionedList {
    /// Starts a structural write (an insertion, a removal, a replacement of
    /// a range): records a read of the whole list, then as ``_beginWrite()``.
    ///
    /// NB: the read is for a selector that mutates a local copy of the
    /// state's list and reads the copy afterwards: by position it then
    /// reads elements that came from other positions of the state's list,
    /// which the keys it records would not name.
    @inlinable @inline(__always)
    internal mutating func _beginStructuralWrite() -> (old: VersionStamp, new: VersionStamp) {
        _Tracking.recordWholeRead(_nodeID)
        return _beginWrite()
    }

    /// Starts a write: takes a fresh stamp and makes the root unique and
    /// stamped with it. Returns the version before and after.
    @inlinable @inline(__always)
    internal mutating func _beginWrite() -> (old: VersionStamp, new: VersionStamp) {
        let old = _root.stamp
        let new = VersionStamp.next()
        _ListNode.makeUnique(&_root, stamp: new)
        return (old, new)
    }

    /// Starts a write of the element at `position`: checks the position,
    /// takes a fresh stamp, makes the path to the element's leaf unique and
    /// marks the element written. Returns the version before and after, and
    /// where the element lies.
    @inlinable @inline(__always)
    internal mutating func _beginElementWrite(
        at position: Int
    ) -> (old: VersionStamp, new: VersionStamp, leaf: _ListNode<Element>, offset: Int) {
        _usagePrecondition(position >= 0 && position < _root.count, "Index out of range")
        let old = _root.stamp
        let new = VersionStamp.next()
        _makeRootUniqueForElementWrite(stamp: new)
        let (leaf, offset) = _root.uniqueLeaf(containing: position, stamp: new)
        leaf.setWritten(offset, stamp: new.rawValue)
        return (old, new, leaf, offset)
    }

    /// Ends a write of the element at `position` (after `_beginElementWrite`
    /// and the write itself): recomputes the attached folds on its path.
    ///
    /// - Complexity: one nil test without folds; O(log n) with.
    @inlinable @inline(__always)
    internal func _endElementWrite(at position: Int) {
        if _root.folds != nil { _root.refreshFolds(containing: position) }
    }

    /// Replaces the whole tree (a rebuild or a wholesale replacement),
    /// keeping the attached folds: they are recomputed over `root`.
    ///
    /// - Complexity: one nil test without folds; O(n) with.
    @inlinable @inline(__always)
    internal mutating func _setRoot(_ root: _ListNode<Element>) {
        let folds = _root.folds
        _root = root
        if let folds { _ListNode.setFolds(&_root, folds, isRoot: true) }
    }

    /// Inserts below a root already made unique for the write `stamp`.
    /// Returns whether a leaf split (its upper half moved into a new leaf).
    ///
    /// - Parameter preferringRight: At a boundary between two leaves,
    ///   whether the element goes to the start of the right one (where an
    ///   element just removed at `index` came from) rather than the end of
    ///   the left one.
    @inlinable @discardableResult
    internal mutating func _insert(
        _ element: Element, slot: _ListSlot, at index: Int, stamp: VersionStamp, preferringRight: Bool = false
    ) -> Bool {
        var leavesMoved = false
        if _root.height == 0 && _root.width == _root.itemCapacity {
            // A root leaf holds what it was made with: room for more
            // (doubling, up to one past the leaf capacity, where it splits).
            let capacity = Swift.min(Swift.max(2 &* _root.itemCapacity, 4), _ListNode<Element>._fullLeafCapacity)
            let unique = _ListNode._isUniqueOwner(&_root)
            let grown = _root._relocated(stamp: stamp, capacity: capacity, explicitSlots: true, moving: unique)
            _root = grown
        }
        if let right = _root.insert(
            element, slot: slot, at: index, stamp: stamp, preferringRight: preferringRight, leavesMoved: &leavesMoved
        ) {
            let left = _root
            _root = _ListNode.branch([left, right], height: left.height + 1, stamp: stamp)
            if let folds = left.folds {
                // A root leaf's chain only named the folds.
                if left.height == 0 { left.folds = nil }
                _root.adoptFolds(of: folds)
            }
        }
        return leavesMoved
    }

    /// Removes below a root already made unique for the write `stamp`.
    @inlinable
    internal mutating func _remove(at index: Int, stamp: VersionStamp) -> Element {
        var leavesMoved = false
        return _remove(at: index, stamp: stamp, leavesMoved: &leavesMoved)
    }

    /// ``_remove(at:stamp:)``, setting `leavesMoved` when an underfull leaf
    /// was merged with a neighbour or took elements from it.
    @inlinable
    internal mutating func _remove(at index: Int, stamp: VersionStamp, leavesMoved: inout Bool) -> Element {
        let element = _root.remove(at: index, stamp: stamp, leavesMoved: &leavesMoved)
        if _root.height > 0, _root.children.count == 1 {
            let folds = _root.folds
            _root = _root.children[0]
            _ListNode.makeUnique(&_root, stamp: stamp)
            if let folds, _root.height == 0 { _root.folds = folds.emptiedChain() }
        }
        return element
    }

    /// Checks the tree after a write, in builds with internal checks: all of
    /// it when `_WholeCheck` says so, else the root's shape.
    @inlinable @inline(__always)
    internal func _checkAfterWrite() {
        #if FASTSTORE_INTERNAL_CHECKS
        _checkAfterWrite(whole: _WholeCheck.isDue(count: _root.count))
        #endif
    }

    #if FASTSTORE_INTERNAL_CHECKS
    /// Checks the whole tree (`whole`), or the root's shape.
    @inlinable
    internal func _checkAfterWrite(whole: Bool) {
        if whole {
            _root._invariantCheck()
            _root._checkFolds()
        } else {
            _root._shallowInvariantCheck()
        }
    }
    #endif

    #if FASTSTORE_INTERNAL_CHECKS
    /// Checks the whole tree: counts, fill factors, equal leaf depth, stamps
    /// non-decreasing toward the root, unique element identities.
    ///
    /// - Complexity: O(n).
    @usableFromInline
    internal func _invariantCheck() {
        _root._invariantCheck()
        _root._checkFolds()
    }
    #endif
}

// MARK: Element access

extension VersionedList {
    /// Reads the element at `position`, recording the read.
    @inlinable
    internal func _readElement(at position: Int) -> Element {
        _usagePrecondition(position >= 0 && position < _root.count, "Index out of range")
        _Tracking.recordElementRead(_nodeID, position)
        return _root.element(at: position)
    }

    /// Replaces the element at `position`, journaling a write of it.
    @inlinable
    internal mutating func _writeElement(_ newValue: Element, at position: Int) {
        let (old, new, leaf, offset) = _beginElementWrite(at: position)
        leaf.elements[offset] = newValue
        _endElementWrite(at: position)
        _Tracking.journalElementValueWrite(_nodeID, from: old, to: new, position)
        _checkAfterWrite()
    }

    /// The element at `position`.
    ///
    /// Reading records a read of that element for FastStore's consumers;
    /// writing journals a write of that element.
    ///
    /// - Precondition: `position` is in `0 ..< count` ("Index out of range").
    /// - Complexity: O(log n) to read. A write copies one node per level,
    ///   O(log n) nodes (about 2.5 KiB at 1,000,000 `Int`s), when another
    ///   version shares them, and none when the list is unique.
    @inlinable
    public subscript(position: Int) -> Element {
        get { _readElement(at: position) }
        _modify {
            let (old, new, leaf, offset) = _beginElementWrite(at: position)
            defer {
                _endElementWrite(at: position)
                _Tracking.journalElementValueWrite(_nodeID, from: old, to: new, position)
                _checkAfterWrite()
            }
            yield &leaf.elements[offset]
        }
        set { _writeElement(newValue, at: position) }
    }
}
