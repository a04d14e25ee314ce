import Atomics
import CFastStore

/// A node (a list node, a `Versioned` box) that a ``_NodeRecycler`` can
/// empty and hand out again.
@usableFromInline
internal protocol _RecyclableNode: AnyObject {
    /// Releases this node's items and fold values (a list node, which
    /// keeps its fold columns' buffers) or value (a box) and leaves it
    /// empty, a valid node whose storage a copy can reuse.
    /// Only for a node nobody else holds.
    func _emptyForReuse()

}

/// Reuses the storage of the list nodes and `Versioned` boxes a store's
/// drains replaced, so that the path copy of a write allocates nothing once
/// warm (docs/collections-engine.md, "Recycled nodes").
///
/// Through the store, the published state shares every node with the
/// working copy, so a drain's write copies the path it writes (the
/// published state keeps the old one) and the next publish lets the old
/// path go. While a store reduces a batch, its recycler is installed on the
/// draining thread (`_TrackingContext`); a node copied for a write then
///
/// 1. takes the storage of a spare of the same class and shape, when one
///    is left from earlier, instead of allocating
///    (``take(like:shape:)``);
/// 2. keeps the node it replaced (one reference, ``keep(_:shape:)``), if
///    it was stamped before the batch began (``wants(stamp:)``): a node
///    the batch made, a reducer's temporary, is left to be freed where it
///    would have been.
///
/// Between actions (``releaseDead()``) and after the batch was published
/// and its subscribers told (``settle()``), every kept node that only the
/// recycler still holds is dead: nothing else can reach it. Its items or
/// value are released then, as a free would have released them, and its
/// storage becomes a spare. A kept list node whose copy borrowed its items
/// (an element write's path, `_ListNode+Lending.swift`) hands them to the
/// copy instead, releasing only those the copy replaced, or, still held,
/// has the copy retain them. A kept node still held elsewhere (an older
/// state someone keeps, a consumer's selection, the history) is let go
/// untouched at the settle. So a node is reused only once provably
/// unreachable.
///
/// At most ``limit`` nodes are kept per batch and ``limit`` spares between
/// drains, each with at most ``maxItemBytes`` of items: a batch that
/// writes more copies the rest as before, and a store holds at most that
/// many empty nodes (their storage only, and a list node's emptied fold
/// columns, each buffer at most ``maxItemBytes``) while idle.
///
/// NB: used only by the thread draining its store (the drain owns it), so
/// unsynchronized, and always outside the store's lock (released values
/// may call the store). Outside a reduction no recycler is installed and a
/// copy allocates, as any copy-on-write does.
@usableFromInline
internal final class _NodeRecycler {
    /// The most nodes kept per batch, and the most spares held.
    @inlinable static var limit: Int { 64 }

    /// A kept node or a spare: the reference the recycler holds, how to
    /// empty it, how to settle it when it lends its items (a list node, see
    /// `_ListNode+Lending.swift`), and what a copy must match to take it
    /// (its class and shape).
    // NB: `empty` is made in code specialized for the node's class, so it
    // captures nothing and releases the items inline; through the
    // protocol's witness, emptying a box went through the generic runtime
    // (a metadata lookup for `Optional<Value>` alone cost hundreds of
    // instructions). The class and shape are stored so that matching reads
    // no object.
    @usableFromInline
    internal struct _Entry {
        // NB: first, where `_settle` finds it.
        @usableFromInline var object: AnyObject
        /// Given where the recycler holds the node (this entry's `object`):
        /// with `_Entry.emptying`, empties it (it is dead); for a lender,
        /// with `_Entry.settling` or `.settlingKeepingHeld`, settles it
        /// (`_ListNode._settleLender`), returning whether it died.
        @usableFromInline let settle: (UnsafeMutableRawPointer, UInt8) -> Bool
        @usableFromInline let type: ObjectIdentifier
        /// The shape a copy's storage must match, with ``lendsBit`` set
        /// for a lender (cleared when it dies, to become a spare).
        // NB: the flag in the shape keeps an entry five words.
        @usableFromInline var shape: Int

        /// Whether the node lends its items to a copy (then settled by
        /// `settle`, not tested here; its borrower is held in
        /// `_NodeRecycler._borrowers`).
        @inlinable var lends: Bool { shape & Self.lendsBit != 0 }

        /// Above every shape (see ``_NodeRecycler/_shape(height:capacity:explicitSlots:)``).
        @inlinable static var lendsBit: Int { 1 &<< 30 }

        @inlinable static var emptying: UInt8 { 0 }
        @inlinable static var settling: UInt8 { 1 }
        @inlinable static var settlingKeepingHeld: UInt8 { 2 }

        @inlinable init<Node: _RecyclableNode>(_ node: Node, shape: Int) {
            self.object = node
            self.settle = { slot, _ in
                Unmanaged<Node>.fromOpaque(slot.load(as: UnsafeRawPointer.self))._withUnsafeGuaranteedRef { $0._emptyForReuse() }
                return true
            }
            self.type = _NodeRecycler._class(of: node)
            self.shape = shape
        }

        @inlinable init<Element>(lender node: _ListNode<Element>, shape: Int) {
            self.object = node
            self.settle = { slot, mode in
                _ListNode<Element>._settleLender(
                    slot.assumingMemoryBound(to: AnyObject.self), keepingHeld: mode == _Entry.settlingKeepingHeld)
            }
            self.type = _NodeRecycler._class(of: node)
            self.shape = shape | Self.lendsBit
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
    /// This batch's borrowers not yet settled (`_borrowers[0 ..< _borrowerCount]`).
    @exclusivity(unchecked) @usableFromInline var _borrowers: UnsafeMutablePointer<_Borrowing>?
    @exclusivity(unchecked) @usableFromInline var _borrowerCount = 0
    /// How many copies took a spare instead of allocating (for tests).
    @exclusivity(unchecked) @usableFromInline var reuses = 0
    /// The last stamp taken before the batch began (``begin()``): a node
    /// stamped later was made or written during the batch, so it belongs to
    /// no published state and is not kept (``wants(stamp:)``).
    @exclusivity(unchecked) @usableFromInline var _since: UInt64 = 0

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
        if let borrowers = _borrowers {
            // NB: none once the drain settled; released as a settle would.
            for i in 0 ..< _borrowerCount { borrowers[i].borrower.release() }
            borrowers.deallocate()
        }
    }

    /// The most bytes of items a node may hold to be kept: a store's idle
    /// spares hold at most `limit` times this much storage (and, per fold
    /// a list carries, as much in emptied fold columns).
    @inlinable static var maxItemBytes: Int { 4_096 }

    /// The shape of a list node with `height`, `capacity` and explicit
    /// slots or not: what a copy taking its storage must match.
    ///
    /// NB: in 30 bits, for 32-bit platforms (bit 30 is `_Entry.lendsBit`):
    /// a capacity is at most 65 and a height below 64.
    @inlinable @inline(__always)
    static func _shape(height: Int, capacity: Int, explicitSlots: Bool) -> Int {
        height &<< 24 | (explicitSlots ? 0 : 1 &<< 16) | capacity
    }

    /// The class of `object`, read from the object.
    // NB: not `ObjectIdentifier(Node.self)`: for a generic class in code
    // merged across its specializations that is a metadata lookup by
    // mangled name, several hundred instructions, at every call.
    @inlinable @inline(__always)
    static func _class(of object: AnyObject) -> ObjectIdentifier { ObjectIdentifier(type(of: object)) }

    /// Keeps `node`, which a copy for a write has just replaced, until
    /// ``settle()``. `Node` must be its dynamic class (a final class), and
    /// `shape` what a copy's storage must match beyond the class (a list
    /// node's height, capacity and slot layout, see
    /// ``_shape(height:capacity:explicitSlots:)``).
    ///
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    func keep<Node: _RecyclableNode>(_ node: Node, shape: Int) {
        _keep(_Entry(node, shape: shape))
    }

    @inlinable @inline(__always)
    func _keep(_ entry: _Entry) {
        guard let replaced = _replaced else { return _keepFirst(entry) }
        guard _replacedCount < Self.limit else { return }
        (replaced + _replacedCount).initialize(to: entry)
        _replacedCount &+= 1
    }

    @usableFromInline
    func _keepFirst(_ entry: _Entry) {
        precondition(MemoryLayout<_Entry>.offset(of: \_Entry.object) == 0, "_NodeRecycler: an entry's object is not its first field")
        _replaced = .allocate(capacity: Self.limit)
        _spares = .allocate(capacity: Self.limit)
        _borrowers = .allocate(capacity: Self.limit)
        _replaced!.initialize(to: entry)
        _replacedCount = 1
    }

    /// An empty spare of the class of `source` (final) kept with `shape`,
    /// taken from the spares, or nil.
    ///
    /// - Complexity: O(spares) at worst; the spares of a write's path are
    ///   stacked so that its next write finds each on top, O(1).
    @inlinable
    func take<Node: _RecyclableNode>(like source: Node, shape: Int) -> Node? {
        guard let spares = _spares else { return nil }
        let type = Self._class(of: source)
        var i = _spareCount
        while i > 0 {
            i &-= 1
            guard spares[i].type == type && spares[i].shape == shape else { continue }
            let entry = (spares + i).move()
            _spareCount &-= 1
            if i != _spareCount { (spares + i).moveInitialize(from: spares + _spareCount, count: 1) }
            reuses &+= 1
            return unsafeDowncast(entry.object, to: Node.self)
        }
        return nil
    }

    /// Starts a batch: nodes stamped from now on are not kept.
    @inlinable @inline(__always)
    func begin() { _since = _cfaststore_stamps_load() }

    /// Whether a copy should keep the node it replaces, stamped `stamp`:
    /// only a node stamped before the batch began, which the published
    /// state (or an older one) may hold. A node the batch made or wrote
    /// (a reducer's temporary, or a working-copy node a temporary shares)
    /// is left to be freed where it would have been: keeping it would
    /// only delay its values' release.
    @inlinable @inline(__always)
    func wants(stamp: VersionStamp) -> Bool { stamp.rawValue <= _since }

    /// Whether one more node can be kept in this batch.
    @inlinable var hasRoom: Bool { _replacedCount < Self.limit }

    /// Whether nodes are kept (a ``settle()`` has work).
    @inlinable var hasKept: Bool { _replacedCount != 0 }

    /// Ends a drain's use: every kept node nobody else holds is emptied and
    /// becomes a spare (while fewer than ``limit`` are), the others are let
    /// go. Call it after the drain published its state and told its
    /// subscribers, on the draining thread, outside the store's lock (an
    /// emptied node's values run their `deinit`s).
    ///
    /// - Complexity: O(kept nodes + the items they release).
    @inlinable @inline(__always)
    func settle() {
        if _replacedCount != 0 { _settle(keepingHeld: false) }
    }

    /// Between two actions of a batch: every kept node nobody else holds
    /// (a copy the reducer made and dropped) is emptied and becomes a spare
    /// now, as a free would have released it when the reducer returned;
    /// the others (still held by the published state) stay kept.
    ///
    /// - Complexity: O(kept nodes + the items they release).
    @inlinable @inline(__always)
    func releaseDead() {
        if _replacedCount != 0 { _settle(keepingHeld: true) }
    }

    @usableFromInline
    func _settle(keepingHeld: Bool) {
        // NB: uninstalled while values are released: a `deinit` that
        // writes a list must not keep or take nodes while these runs move.
        let context = _TrackingContext.ifPresent
        let installed = context?._recycler
        context?._recycler = nil
        defer { context?._recycler = installed }
        let kept = _replaced.unsafelyUnwrapped
        let spares = _spares.unsafelyUnwrapped
        let count = _replacedCount
        // NB: in copy order, a parent before its children: emptying a dead
        // parent releases its children, which may leave them held by the
        // recycler alone, and so recyclable in the same pass.
        // NB: `(kept + i).pointee`, not `kept[i]`: in unoptimized builds
        // `&kept[i].object` went through a temporary copy (one more
        // reference, never unique).
        var dead: UInt64 = 0
        // NB: no entry lends once every borrower was let go.
        let lending = _borrowerCount != 0
        for i in 0 ..< count {
            if lending && (kept + i).pointee.lends {
                // NB: tested where the recycler holds it (`object` is the
                // entry's first field).
                let settle = (kept + i).pointee.settle
                let died = settle(UnsafeMutableRawPointer(kept + i), keepingHeld ? _Entry.settlingKeepingHeld : _Entry.settling)
                if died {
                    // NB: a spare now, found by its shape alone.
                    (kept + i).pointee.shape &= ~_Entry.lendsBit
                    dead |= 1 &<< UInt64(i)
                }
                if died || !keepingHeld {
                    // NB: resolved: the borrower let go (it may die here,
                    // an owner of all its items by now).
                    _releaseBorrower(lentBy: UnsafeMutableRawPointer(kept + i).load(as: UnsafeMutableRawPointer.self))
                }
                continue
            }
            guard isKnownUniquelyReferenced(&(kept + i).pointee.object) else { continue }
            // NB: the last other holder (a reader of an older state, on
            // another thread) released it: order its reads before the
            // emptying's writes (the check itself promises no ordering).
            atomicMemoryFence(ordering: .acquiring)
            // NB: the entry moved out and back, and its node passed
            // unretained: called from memory, the closure's context and the
            // node were retained and released around the call.
            let entry = (kept + i).move()
            var node = Unmanaged.passUnretained(entry.object).toOpaque()
            _ = withUnsafeMutablePointer(to: &node) { entry.settle(UnsafeMutableRawPointer($0), _Entry.emptying) }
            (kept + i).initialize(to: entry)
            dead |= 1 &<< UInt64(i)
        }
        if dead == 0 && keepingHeld { return }
        // NB: the dead stacked in reverse, so that the next write along the
        // same path, which copies from the top, finds each on top.
        var stack = dead
        while stack != 0 {
            let i = 63 &- stack.leadingZeroBitCount
            stack &= ~(1 &<< UInt64(i))
            if _spareCount < Self.limit {
                (spares + _spareCount).moveInitialize(from: kept + i, count: 1)
                _spareCount &+= 1
            } else {
                (kept + i).deinitialize(count: 1)
            }
        }
        if keepingHeld {
            // The held ones close up, in order.
            var held = 0
            for i in 0 ..< count where dead & (1 &<< UInt64(i)) == 0 {
                if i != held { (kept + held).moveInitialize(from: kept + i, count: 1) }
                held &+= 1
            }
            _replacedCount = held
        } else {
            for i in 0 ..< count where dead & (1 &<< UInt64(i)) == 0 { (kept + i).deinitialize(count: 1) }
            _replacedCount = 0
        }
    }
}

extension _ListNode: _RecyclableNode {
    @inlinable
    func _emptyForReuse() {
        #if FASTSTORE_INTERNAL_CHECKS
        precondition(_header.pointee.pair == nil && _header.pointee.borrowed == 0, "_ListNode: a lending or borrowing node emptied")
        #endif
        if height == 0 {
            // NB: one element at a time: `deinitialize(count:)` of a
            // non-trivial type is a runtime call that destroys each
            // element through its value witness (todo: a third of the
            // emptying).
            let elements = _elementsPointer
            for i in 0 ..< width { _ = (elements + i).move() }
        } else {
            // NB: as in `deinit`: the children released as plain references.
            let children = UnsafeMutableRawPointer(_childrenPointer).assumingMemoryBound(to: Unmanaged<_ListNode>.self)
            for k in 0 ..< width { children[k].release() }
        }
        _setWidth(0)
        count = 0
        // NB: the fold columns are kept, emptied, for the copy that takes
        // this node (`_relocateItems`).
        folds?.removeAllKeepingCapacityInChain()
    }
}

