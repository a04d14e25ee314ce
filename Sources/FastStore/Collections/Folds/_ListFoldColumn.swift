/// One attached fold's values in one node of a ``VersionedList``'s tree:
/// in a branch, the summary of each child (pairwise with `children`, as
/// `counts` is) and their combination, the branch's own summary; in a root
/// leaf, nothing (the column only names the fold: a root leaf's summary is
/// folded from its at most 64 elements when read).
///
/// A node holds its columns as a chain (`next`), one per attached fold, in
/// the same order in every node of a tree. Columns are mutable and owned by
/// one node: copying a node copies its chain (the value buffers are shared
/// until written), or, when the copy takes a recycled node's storage,
/// assigns the values into that node's emptied columns (own buffers).
///
/// NB: a class hierarchy erases the summary type so that `_ListNode` keeps
/// one type parameter; its methods are called only when a fold is attached.
/// NB: unchecked exclusivity on the mutable fields: a column is written
/// only through the uniquely referenced node that owns it, by the thread
/// writing that node (as the node's own fields).
@usableFromInline
internal class _ListFoldColumn<Element> {
    /// The next attached fold's column, in attachment order.
    @usableFromInline @exclusivity(unchecked) final var next: _ListFoldColumn<Element>?
    /// The summary type this column folds.
    @usableFromInline final let summary: ObjectIdentifier

    @usableFromInline
    init(summary: ObjectIdentifier) {
        self.summary = summary
    }

    /// A column of the same fold holding no values (`next` not copied).
    @usableFromInline func emptied() -> _ListFoldColumn<Element> { fatalError("abstract") }

    /// A column of the same fold holding the same values (`next` not copied).
    @usableFromInline func copy() -> _ListFoldColumn<Element> { fatalError("abstract") }

    /// Makes this column (of the same fold as `source`) hold `source`'s
    /// values, in its own buffer: a recycled node's column, emptied, takes
    /// a copy's values without allocating (`next` not assigned).
    @usableFromInline func assign(from source: _ListFoldColumn<Element>) { fatalError("abstract") }

    /// Removes the values, keeping the buffer for ``assign(from:)`` when
    /// it is within the recycler's bound on a spare's storage.
    @usableFromInline func removeAllKeepingCapacity() { fatalError("abstract") }

    /// Recomputes every value from `children`, whose columns for this fold
    /// are `childColumns` (nil for leaves).
    @usableFromInline
    func fill(_ children: _NodeLane<Element, _ListNode<Element>>, _ childColumns: ContiguousArray<_ListFoldColumn<Element>?>) {
        fatalError("abstract")
    }

    /// Recomputes the value of child `k`.
    @usableFromInline
    func refresh(_ k: Int, child: _ListNode<Element>, column: _ListFoldColumn<Element>?) { fatalError("abstract") }

    /// Inserts the value of a new child `k`.
    @usableFromInline
    func insert(_ k: Int, child: _ListNode<Element>, column: _ListFoldColumn<Element>?) { fatalError("abstract") }

    /// Removes the value of child `k`.
    @usableFromInline
    func remove(_ k: Int) { fatalError("abstract") }

    #if FASTSTORE_INTERNAL_CHECKS
    /// Whether the stored values equal the ones recomputed from `children`.
    @usableFromInline
    func _isConsistent(
        _ children: _NodeLane<Element, _ListNode<Element>>, _ childColumns: ContiguousArray<_ListFoldColumn<Element>?>
    ) -> Bool { fatalError("abstract") }
    #endif
}

extension _ListFoldColumn {
    /// A copy of this chain (each column copied, values shared until written).
    @usableFromInline
    final func copyChain() -> _ListFoldColumn<Element> {
        let head = copy()
        var tail = head
        var column = next
        while let c = column {
            let copied = c.copy()
            tail.next = copied
            tail = copied
            column = c.next
        }
        return head
    }

    /// Makes this chain (a recycled node's, emptied) hold `source`'s
    /// values, when both chains fold the same summaries in the same order;
    /// returns `false`, changing nothing, otherwise.
    ///
    /// - Complexity: O(folds + values).
    @usableFromInline
    final func assignChain(from source: _ListFoldColumn<Element>) -> Bool {
        var mine: _ListFoldColumn<Element>? = self
        var theirs: _ListFoldColumn<Element>? = source
        while let m = mine, let t = theirs {
            guard m.summary == t.summary else { return false }
            mine = m.next
            theirs = t.next
        }
        guard mine == nil, theirs == nil else { return false }
        mine = self
        theirs = source
        while let m = mine, let t = theirs {
            m.assign(from: t)
            mine = m.next
            theirs = t.next
        }
        return true
    }

    /// Removes every column's values, keeping their buffers: the chain of a
    /// node the recycler keeps (see ``assignChain(from:)``).
    ///
    /// - Complexity: O(folds + values).
    @usableFromInline
    final func removeAllKeepingCapacityInChain() {
        var column: _ListFoldColumn<Element>? = self
        while let c = column {
            c.removeAllKeepingCapacity()
            column = c.next
        }
    }

    /// This chain's folds with no values.
    @usableFromInline
    final func emptiedChain() -> _ListFoldColumn<Element> {
        let head = emptied()
        var tail = head
        var column = next
        while let c = column {
            let emptied = c.emptied()
            tail.next = emptied
            tail = emptied
            column = c.next
        }
        return head
    }

    /// The column of `summary` in this chain, if any.
    @usableFromInline
    final func find(_ summary: ObjectIdentifier) -> _ListFoldColumn<Element>? {
        var column: _ListFoldColumn<Element>? = self
        while let c = column {
            if c.summary == summary { return c }
            column = c.next
        }
        return nil
    }

    /// This chain without the column of `summary` (emptied columns), or nil
    /// when nothing remains.
    @usableFromInline
    final func emptiedChain(removing summary: ObjectIdentifier) -> _ListFoldColumn<Element>? {
        var kept: [_ListFoldColumn<Element>] = []
        var column: _ListFoldColumn<Element>? = self
        while let c = column {
            if c.summary != summary { kept.append(c.emptied()) }
            column = c.next
        }
        for i in kept.indices.dropLast() { kept[i].next = kept[i + 1] }
        return kept.first
    }
}

/// The work of a summary `S`'s columns, made where `S` is a concrete type:
/// the column's methods are reached through its class's vtable, so they
/// run unspecialized (every `summarize` and `combine` through witness
/// tables, every `Value` through value witnesses and runtime metadata); the
/// loops and stores of a fold update run in these closures instead,
/// specialized in the module that declares the summary (see
/// `ListSummary._foldKernels`). Shared by every column of one attachment.
@usableFromInline
internal final class _SummaryKernels<S: ListSummary> {
    @usableFromInline typealias Column = _ListSummaryColumn<S>
    @usableFromInline typealias Node = _ListNode<S.Element>

    /// Sets `column`'s value of child `k` from `child` (whose column for
    /// this fold is `childColumn`) and recomputes its total.
    @usableFromInline let refresh: (Column, Int, Node, _ListFoldColumn<S.Element>?) -> Void
    /// Inserts the value of the new child `k`, and recomputes the total.
    @usableFromInline let insert: (Column, Int, Node, _ListFoldColumn<S.Element>?) -> Void
    /// Removes the value of child `k`, and recomputes the total.
    @usableFromInline let remove: (Column, Int) -> Void
    /// Recomputes every value from the children and their columns.
    @usableFromInline let fill: (Column, _NodeLane<S.Element, Node>, ContiguousArray<_ListFoldColumn<S.Element>?>) -> Void
    /// Makes the first column hold the second's values and total, in its
    /// own buffer (``_ListFoldColumn/assign(from:)``).
    @usableFromInline let assign: (Column, Column) -> Void
    /// Removes the column's values, keeping its buffer when within the
    /// recycler's bound.
    @usableFromInline let clear: (Column) -> Void

    // NB: `@inlinable`, so that the closures are specialized for `S` where
    // the conformance's witness makes them (the caller's module), not
    // compiled generically here.
    @inlinable
    init() {
        @inline(__always)
        func summary(of child: Node, _ childColumn: _ListFoldColumn<S.Element>?) -> S.Value {
            if child.height == 0 {
                return child.elements.withUnsafeBufferPointer { elements in
                    var value = S.identity
                    for element in elements { value = S.combine(value, S.summarize(element)) }
                    return value
                }
            }
            return unsafeDowncast(childColumn.unsafelyUnwrapped, to: Column.self).total
        }
        @inline(__always)
        func updateTotal(_ column: Column) {
            column.total = column.values.withUnsafeBufferPointer { values in
                var value = S.identity
                for v in values { value = S.combine(value, v) }
                return value
            }
        }
        refresh = { column, k, child, childColumn in
            let value = summary(of: child, childColumn)
            // NB: a summary identical to the stored one leaves the total as
            // it was (and the values' buffer, shared with older versions,
            // uncopied). Identical, not `==`: two equal values may differ
            // in what `combine` sees (canonically equivalent strings of
            // different lengths), so only plain values compared bit for bit
            // take this exit.
            if _isPOD(S.Value.self), _bitwiseEqual(column.values[k], value) { return }
            column.values[k] = value
            updateTotal(column)
        }
        insert = { column, k, child, childColumn in
            column.values.insert(summary(of: child, childColumn), at: k)
            updateTotal(column)
        }
        remove = { column, k in
            column.values.remove(at: k)
            updateTotal(column)
        }
        fill = { column, children, childColumns in
            var values = ContiguousArray<S.Value>()
            values.reserveCapacity(children.count)
            for k in children.indices { values.append(summary(of: children[k], childColumns[k])) }
            column.values = values
            updateTotal(column)
        }
        assign = { column, source in
            // NB: appended into the column's own buffer (emptied by
            // `clear`), not shared with the source's: the copy's later
            // writes then change it in place instead of copying it.
            if !column.values.isEmpty { column.values.removeAll(keepingCapacity: true) }
            column.values.append(contentsOf: source.values)
            column.total = source.total
        }
        clear = { column in
            // NB: a buffer is kept only within the recycler's bound on a
            // spare's storage (`_NodeRecycler.maxItemBytes`).
            let kept = column.values.capacity &* MemoryLayout<S.Value>.stride <= _NodeRecycler.maxItemBytes
            column.values.removeAll(keepingCapacity: kept)
            column.total = S.identity
        }
    }
}

/// Whether `a` and `b` have the same bytes (for plain values: the same
/// value, whatever `==` says).
@inlinable @inline(__always)
internal func _bitwiseEqual<T>(_ a: T, _ b: T) -> Bool {
    withUnsafeBytes(of: a) { a in withUnsafeBytes(of: b) { b in a.elementsEqual(b) } }
}

/// The column of the summary `S`.
@usableFromInline
internal final class _ListSummaryColumn<S: ListSummary>: _ListFoldColumn<S.Element> {
    /// The summary of each child, pairwise with the node's children.
    @usableFromInline @exclusivity(unchecked) var values: ContiguousArray<S.Value>
    /// The combination of `values`: the node's own summary.
    @usableFromInline @exclusivity(unchecked) var total: S.Value
    @usableFromInline let kernels: _SummaryKernels<S>

    @usableFromInline
    init(values: ContiguousArray<S.Value>, total: S.Value, kernels: _SummaryKernels<S>) {
        self.values = values
        self.total = total
        self.kernels = kernels
        super.init(summary: ObjectIdentifier(S.self))
    }

    /// A column holding no values.
    @usableFromInline
    convenience init(kernels: _SummaryKernels<S>) { self.init(values: [], total: S.identity, kernels: kernels) }

    @usableFromInline override func emptied() -> _ListFoldColumn<S.Element> { _ListSummaryColumn(kernels: kernels) }

    @usableFromInline override func copy() -> _ListFoldColumn<S.Element> {
        _ListSummaryColumn(values: values, total: total, kernels: kernels)
    }

    // NB: the kernels depend on `S` only: a column keeps its own when it
    // takes the values of another attachment's column of the same fold.
    @usableFromInline override func assign(from source: _ListFoldColumn<S.Element>) {
        kernels.assign(self, unsafeDowncast(source, to: _ListSummaryColumn<S>.self))
    }

    @usableFromInline override func removeAllKeepingCapacity() {
        kernels.clear(self)
    }

    /// The summary of a leaf's elements, computed generically (for reads
    /// of a list whose fold is not attached, and of a root leaf).
    ///
    /// - Complexity: O(leaf capacity).
    @inlinable
    static func fold(leaf: _ListNode<S.Element>) -> S.Value {
        leaf.elements.withUnsafeBufferPointer { elements in
            var value = S.identity
            for element in elements { value = S.combine(value, S.summarize(element)) }
            return value
        }
    }

    /// The summary of `child`: folded from its elements for a leaf, its
    /// column's total for a branch (for the internal checks: generic).
    @usableFromInline
    static func summary(of child: _ListNode<S.Element>, column: _ListFoldColumn<S.Element>?) -> S.Value {
        if child.height == 0 { return fold(leaf: child) }
        return unsafeDowncast(column.unsafelyUnwrapped, to: _ListSummaryColumn<S>.self).total
    }

    @usableFromInline
    override func fill(
        _ children: _NodeLane<S.Element, _ListNode<S.Element>>, _ childColumns: ContiguousArray<_ListFoldColumn<S.Element>?>
    ) {
        kernels.fill(self, children, childColumns)
    }

    @usableFromInline
    override func refresh(_ k: Int, child: _ListNode<S.Element>, column: _ListFoldColumn<S.Element>?) {
        kernels.refresh(self, k, child, column)
    }

    @usableFromInline
    override func insert(_ k: Int, child: _ListNode<S.Element>, column: _ListFoldColumn<S.Element>?) {
        kernels.insert(self, k, child, column)
    }

    @usableFromInline
    override func remove(_ k: Int) {
        kernels.remove(self, k)
    }

    #if FASTSTORE_INTERNAL_CHECKS
    @usableFromInline
    override func _isConsistent(
        _ children: _NodeLane<S.Element, _ListNode<S.Element>>, _ childColumns: ContiguousArray<_ListFoldColumn<S.Element>?>
    ) -> Bool {
        guard values.count == children.count else { return false }
        for k in children.indices where values[k] != Self.summary(of: children[k], column: childColumns[k]) {
            return false
        }
        return total == values.reduce(S.identity, S.combine)
    }
    #endif
}
