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
        @usableFromInline var object: AnyObject?
        @usableFromInline unowned(unsafe) let node: any _RecyclableNode
        @usableFromInline let type: ObjectIdentifier
        @usableFromInline let shape: Int

        @inlinable init<Element>(_ node: _ListNode<Element>) {
            self.object = node
            self.node = node
            self.type = ObjectIdentifier(_ListNode<Element>.self)
            self.shape = _NodeRecycler._shape(height: node.height, capacity: node.itemCapacity)
        }

        @inlinable init(node: any _RecyclableNode, type: ObjectIdentifier, shape: Int) {
            self.object = nil
            self.node = node
            self.type = type
            self.shape = shape
        }

        /// This entry without its reference.
        @inlinable var _withoutObject: _Entry { _Entry(node: node, type: type, shape: shape) }
    }

    /// The nodes this drain's copies replaced, one reference each, in the
    /// order they were copied (a parent before its child on a write's path).
    @exclusivity(unchecked) @usableFromInline var _replaced: [_Entry] = []
    /// Empty nodes whose storage a copy can take.
    @exclusivity(unchecked) @usableFromInline var _spares: [_Entry] = []
    /// How many copies took a spare instead of allocating (for tests).
    @exclusivity(unchecked) @usableFromInline var reuses = 0

    @inlinable init() {}

    @inlinable @inline(__always)
    static func _shape(height: Int, capacity: Int) -> Int { height &<< 32 | capacity }

    /// Keeps `node`, which a copy for a write has just replaced, until
    /// ``settle()``. The node must have explicit slots (as every copy
    /// for a write has), so that a copy can take its storage.
    ///
    /// - Complexity: O(1) amortized.
    @inlinable @inline(__always)
    func keep<Element>(_ node: _ListNode<Element>) {
        if _replaced.count < Self.limit { _replaced.append(_Entry(node)) }
    }

    /// An empty spare node of `_ListNode<Element>` with `height` and
    /// `capacity` (and explicit slots), taken from the spares, or nil.
    ///
    /// - Complexity: O(spares) at worst; the spares of a write's path come
    ///   back in the order its next write takes them, so usually O(1).
    @inlinable
    func take<Element>(_: _ListNode<Element>.Type, height: Int, capacity: Int) -> _ListNode<Element>? {
        let type = ObjectIdentifier(_ListNode<Element>.self)
        let shape = Self._shape(height: height, capacity: capacity)
        let last = _spares.count &- 1
        var i = last
        while i >= 0 {
            if _spares[i].type == type && _spares[i].shape == shape {
                if i != last { _spares.withUnsafeMutableBufferPointer { $0.swapAt(i, last) } }
                reuses &+= 1
                return unsafeDowncast(_spares.removeLast().object.unsafelyUnwrapped, to: _ListNode<Element>.self)
            }
            i &-= 1
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
        if !_replaced.isEmpty { _settle() }
    }

    @usableFromInline
    func _settle() {
        // NB: in copy order, a parent before its children: emptying a dead
        // parent releases its children, which may leave them held by the
        // recycler alone, and so recyclable in the same pass.
        // NB: through the buffer: `isKnownUniquelyReferenced(&_replaced[i].object)`
        // went through a temporary copy of the element (one more reference,
        // never unique) in unoptimized builds.
        let firstNew = _spares.count
        _replaced.withUnsafeMutableBufferPointer { kept in
            for i in kept.indices {
                guard isKnownUniquelyReferenced(&kept[i].object) else { continue }
                kept[i].node._emptyForReuse()
                if _spares.count < Self.limit {
                    // NB: moved to the spares (no retain), an entry without
                    // its object left behind.
                    let entry = (kept.baseAddress! + i).move()
                    (kept.baseAddress! + i).initialize(to: entry._withoutObject)
                    _spares.append(entry)
                }
            }
        }
        _replaced._removeAllKeepingCapacity()
        // NB: reversed, so that the next drain's copies, which come in the
        // same order (a path from the top), find theirs at the end.
        _spares.withUnsafeMutableBufferPointer { spares in
            var (i, j) = (firstNew, spares.count &- 1)
            while i < j {
                spares.swapAt(i, j)
                i &+= 1
                j &-= 1
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
