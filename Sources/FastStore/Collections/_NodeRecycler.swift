/// A list node that a ``_NodeRecycler`` can empty and hand out again.
@usableFromInline
internal protocol _RecyclableNode: AnyObject {
    /// Releases this node's items and folds and leaves it empty (width and
    /// count 0), a valid node whose storage a copy can reuse. Only for a
    /// node nobody else holds.
    func _emptyForReuse()
}

/// Reuses the storage of the list nodes a store's drain replaced, so that
/// the path copy of a write to a shared list allocates nothing once warm.
///
/// Through the store, the published state shares every node with the
/// working copy, so a drain's write copies the path it writes (the
/// published state keeps the old one) and the next publish lets the old
/// path go. While a store drains, its recycler is installed on the draining
/// thread (`_TrackingContext`); a list node copied for a write then
///
/// 1. takes the storage of a spare node of the same element type, height,
///    capacity and slot layout, when one is left from an earlier drain,
///    instead of allocating (``take(_:height:capacity:)``);
/// 2. keeps the node it replaced (one reference, ``keep(_:)``).
///
/// After the drain published its state and told its subscribers
/// (``settle()``), every kept node that only the recycler still holds is
/// dead: nothing else can reach it. Its items are released then, as a free
/// would have released them, and its storage becomes a spare. A kept node
/// still held elsewhere (an older state someone keeps, a consumer's
/// selection, the history) is let go untouched. So a node is reused only
/// once provably unreachable, and the values it held are released in the
/// drain that replaced them, not later.
///
/// At most ``limit`` nodes are kept per drain and ``limit`` spares between
/// drains: a drain that writes more copies the rest as before, and a store
/// holds at most that many empty nodes (their storage only) while idle.
///
/// NB: used only by the thread draining its store (the drain owns it), so
/// unsynchronized. Outside a drain no recycler is installed and a copy
/// allocates, as any copy-on-write does.
@usableFromInline
internal final class _NodeRecycler {
    /// The most nodes kept per drain, and the most spares held.
    @inlinable static var limit: Int { 64 }

    /// A kept node or a spare: the reference the recycler holds, the same
    /// node as a `_RecyclableNode` to empty it, and what a copy must match
    /// to take it (its class and its height and capacity).
    // NB: two views of one object because `isKnownUniquelyReferenced` of a
    // protocol existential opens it into a temporary (one more reference):
    // the test runs on `object`, the unretained `node` only calls. The
    // class and shape are stored so that matching reads no object.
    @usableFromInline
    internal struct _Entry {
        @usableFromInline var object: AnyObject
        @usableFromInline unowned(unsafe) let node: any _RecyclableNode
        @usableFromInline let type: ObjectIdentifier
        @usableFromInline let shape: Int

        @inlinable init<Element>(_ node: _ListNode<Element>) {
            self.object = node
            self.node = node
            self.type = ObjectIdentifier(_ListNode<Element>.self)
            self.shape = _NodeRecycler._shape(height: node.height, capacity: node.itemCapacity)
        }
    }

    // NB: two fixed runs of `limit` entries, allocated on the first keep,
    // not arrays: an array's uniqueness and capacity checks, and the
    // retain and release of an entry copied between arrays, cost more than
    // the allocation a spare saves.
    /// The nodes this drain's copies replaced (`_replaced[0 ..< _replacedCount]`),
    /// one reference each, in the order they were copied: a parent before
    /// its child on a write's path.
    @exclusivity(unchecked) @usableFromInline var _replaced: UnsafeMutablePointer<_Entry>?
    @exclusivity(unchecked) @usableFromInline var _replacedCount = 0
    /// Empty nodes whose storage a copy can take (`_spares[0 ..< _spareCount]`),
    /// the next one likely wanted last.
    @exclusivity(unchecked) @usableFromInline var _spares: UnsafeMutablePointer<_Entry>?
    @exclusivity(unchecked) @usableFromInline var _spareCount = 0
    /// How many copies took a spare instead of allocating (for tests).
    @exclusivity(unchecked) @usableFromInline var reuses = 0

    @inlinable init() {}

    deinit {
        if let replaced = _replaced {
            replaced.deinitialize(count: _replacedCount)
            replaced.deallocate()
        }
        if let spares = _spares {
            spares.deinitialize(count: _spareCount)
            spares.deallocate()
        }
    }

    @inlinable @inline(__always)
    static func _shape(height: Int, capacity: Int) -> Int { height &<< 32 | capacity }

    /// Keeps `node`, which a copy for a write has just replaced, until
    /// ``settle()``. The node must have explicit slots (as every copy
    /// for a write has), so that a copy can take its storage.
    ///
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    func keep<Element>(_ node: _ListNode<Element>) {
        guard let replaced = _replaced else { return _keepFirst(_Entry(node)) }
        guard _replacedCount < Self.limit else { return }
        (replaced + _replacedCount).initialize(to: _Entry(node))
        _replacedCount &+= 1
    }

    @usableFromInline
    func _keepFirst(_ entry: _Entry) {
        _replaced = .allocate(capacity: Self.limit)
        _spares = .allocate(capacity: Self.limit)
        _replaced!.initialize(to: entry)
        _replacedCount = 1
    }

    /// An empty spare node of `_ListNode<Element>` with `height` and
    /// `capacity` (and explicit slots), taken from the spares, or nil.
    ///
    /// - Complexity: O(spares) at worst; the spares of a write's path are
    ///   stacked so that its next write finds each on top, O(1).
    @inlinable
    func take<Element>(_: _ListNode<Element>.Type, height: Int, capacity: Int) -> _ListNode<Element>? {
        guard let spares = _spares else { return nil }
        let type = ObjectIdentifier(_ListNode<Element>.self)
        let shape = Self._shape(height: height, capacity: capacity)
        var i = _spareCount
        while i > 0 {
            i &-= 1
            guard spares[i].type == type && spares[i].shape == shape else { continue }
            let entry = (spares + i).move()
            _spareCount &-= 1
            if i != _spareCount { (spares + i).moveInitialize(from: spares + _spareCount, count: 1) }
            reuses &+= 1
            return unsafeDowncast(entry.object, to: _ListNode<Element>.self)
        }
        return nil
    }

    /// Ends a drain's use: every kept node nobody else holds is emptied and
    /// becomes a spare (while fewer than ``limit`` are), the others are let
    /// go. Call it after the drain published its state and told its
    /// subscribers, on the draining thread.
    ///
    /// - Complexity: O(kept nodes + the items they release).
    @inlinable @inline(__always)
    func settle() {
        if _replacedCount != 0 { _settle() }
    }

    @usableFromInline
    func _settle() {
        let kept = _replaced.unsafelyUnwrapped
        let spares = _spares.unsafelyUnwrapped
        let count = _replacedCount
        _replacedCount = 0
        // NB: in copy order, a parent before its children: emptying a dead
        // parent releases its children, which may leave them held by the
        // recycler alone, and so recyclable in the same pass.
        var dead: UInt64 = 0
        // NB: `(kept + i).pointee`, not `kept[i]`: in unoptimized builds
        // `&kept[i].object` went through a temporary copy (one more
        // reference, never unique).
        for i in 0 ..< count where isKnownUniquelyReferenced(&(kept + i).pointee.object) {
            (kept + i).pointee.node._emptyForReuse()
            dead |= 1 &<< UInt64(i)
        }
        // NB: stacked in reverse, so that the next write along the same
        // path, which copies from the top, finds each on top.
        var i = count
        while i > 0 {
            i &-= 1
            if dead & (1 &<< UInt64(i)) != 0 && _spareCount < Self.limit {
                (spares + _spareCount).moveInitialize(from: kept + i, count: 1)
                _spareCount &+= 1
            } else {
                (kept + i).deinitialize(count: 1)
            }
        }
    }
}

extension _ListNode: _RecyclableNode {
    @usableFromInline
    func _emptyForReuse() {
        if height == 0 {
            _elementsPointer.deinitialize(count: width)
        } else {
            // NB: as in `deinit`: the children released as plain references.
            let children = UnsafeMutableRawPointer(_childrenPointer).assumingMemoryBound(to: Unmanaged<_ListNode>.self)
            for k in 0 ..< width { children[k].release() }
        }
        _setWidth(0)
        count = 0
        folds = nil
    }
}
