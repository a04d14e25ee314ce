// Fold maintenance of a list tree (see `_ListFoldColumn`). A tree with
// folds attached has a column chain in every branch (the summary of each
// child, pairwise with `children`) and, when its root is a leaf, an emptied
// chain there naming the folds; non-root leaves hold none. The mutation code
// calls these after changing a branch's children, behind a nil check of
// `folds`, so a tree without folds pays one test per level written.

extension _ListNode {
    /// The columns of `children`, pairwise (nil for leaves).
    @usableFromInline
    var childColumns: ContiguousArray<_ListFoldColumn<Element>?> {
        ContiguousArray(children.lazy.map(\.folds))
    }

    /// Recomputes every column of this branch from its children.
    ///
    /// - Complexity: O(width × folds), plus a fold over each leaf child.
    @usableFromInline
    func fillFolds() {
        var childColumns = self.childColumns
        var column = folds
        while let c = column {
            c.fill(children, childColumns)
            column = c.next
            for i in childColumns.indices { childColumns[i] = childColumns[i]?.next }
        }
    }

    /// Recomputes child `k`'s summaries in this branch's columns.
    ///
    /// - Complexity: O(width × folds), plus a fold over the child if a leaf.
    @usableFromInline
    func refreshFolds(child k: Int) {
        let child = children[k]
        var childColumn = child.folds
        var column = folds
        while let c = column {
            c.refresh(k, child: child, column: childColumn)
            column = c.next
            childColumn = childColumn?.next
        }
    }

    /// Inserts the summaries of the new child `k` into this branch's columns.
    @usableFromInline
    func insertFolds(child k: Int) {
        let child = children[k]
        var childColumn = child.folds
        var column = folds
        while let c = column {
            c.insert(k, child: child, column: childColumn)
            column = c.next
            childColumn = childColumn?.next
        }
    }

    /// Gives a branch made by a split of this one (or a new root over it)
    /// columns of the same folds, filled from its children.
    @usableFromInline
    func adoptFolds(of model: _ListFoldColumn<Element>) {
        folds = model.emptiedChain()
        fillFolds()
    }

    /// After a write of the element at `index` below this (unique) node,
    /// recomputes the summaries on the path to it, bottom-up.
    ///
    /// - Complexity: O(log n × (branch width + leaf capacity)) per fold.
    @usableFromInline
    func refreshFolds(containing index: Int) {
        guard height > 0 else { return }
        let (k, o) = child(containing: index)
        children[k].refreshFolds(containing: o)
        refreshFolds(child: k)
    }

    /// Gives the tree below `node` (a root) the fold chain `chain` (nil:
    /// none), replacing its columns. Shared branches are copied keeping
    /// their stamps (folds are not part of the list's value); leaves stay
    /// shared.
    ///
    /// - Complexity: O(n) summaries; copies the shared branches.
    @usableFromInline
    static func setFolds(_ node: inout _ListNode, _ chain: _ListFoldColumn<Element>?, isRoot: Bool) {
        if node.height == 0 {
            guard isRoot else { return }
            if !_isUniqueOwner(&node) { node = node.copy(stamp: node.stamp) }
            node.folds = chain?.emptiedChain()
            return
        }
        if !_isUniqueOwner(&node) { node = node.copy(stamp: node.stamp) }
        if node.height > 1 {
            for k in node.children.indices { setFolds(&node.children[k], chain, isRoot: false) }
        }
        node.folds = chain?.emptiedChain()
        node.fillFolds()
    }

    /// The value of the fold `S` over this (root) node's subtree, or nil
    /// when `S` is not attached.
    ///
    /// - Complexity: O(folds attached); O(leaf capacity) more for a root leaf.
    @usableFromInline
    func foldValue<S: ListSummary>(_: S.Type) -> S.Value? where S.Element == Element {
        guard let column = folds?.find(ObjectIdentifier(S.self)) else { return nil }
        if height == 0 { return _ListSummaryColumn<S>.fold(leaf: self) }
        return unsafeDowncast(column, to: _ListSummaryColumn<S>.self).total
    }
}

#if FASTSTORE_INTERNAL_CHECKS
extension _ListNode {
    /// Checks the fold columns of the tree below this root: each branch has
    /// as many columns as the root names, for the same folds, pairwise with
    /// its children and equal to summaries recomputed from them; non-root
    /// leaves hold none.
    ///
    /// - Complexity: O(n) per fold.
    @usableFromInline
    func _checkFolds() {
        guard let rootChain = folds else {
            _checkNoFolds()
            return
        }
        // A root leaf's chain only names the folds.
        if height > 0 { _checkFolds(like: rootChain) }
    }

    @usableFromInline
    func _checkNoFolds() {
        precondition(folds == nil, "VersionedList: fold columns in a tree without folds")
        for child in children { child._checkNoFolds() }
    }

    @usableFromInline
    func _checkFolds(like rootChain: _ListFoldColumn<Element>) {
        if height == 0 {
            precondition(folds == nil, "VersionedList: fold columns in a non-root leaf")
            return
        }
        for child in children { child._checkFolds(like: rootChain) }
        var expected: _ListFoldColumn<Element>? = rootChain
        var column = folds
        var childColumns = self.childColumns
        while let e = expected {
            guard let c = column else { preconditionFailure("VersionedList: branch missing a fold column") }
            precondition(c.summary == e.summary, "VersionedList: fold columns out of order")
            precondition(c._isConsistent(children, childColumns), "VersionedList: stale fold summary")
            expected = e.next
            column = c.next
            for i in childColumns.indices { childColumns[i] = childColumns[i]?.next }
        }
        precondition(column == nil, "VersionedList: extra fold column in a branch")
    }
}
#endif
