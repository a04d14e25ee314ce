// The recycler's borrowers: a copy for a write that borrows its items
// from the node it replaces (see `_ListNode+Lending.swift`) is held here,
// beside its lender's address, until the drain's settle resolves the
// lending.

extension _NodeRecycler {
    /// A borrower of this batch whose lending is not resolved yet: its
    /// lender's address and the borrower, held (one reference) so that it
    /// cannot be freed, nor written in place but by this drain, before then
    /// (see `_ListNode+Lending.swift`). Apart from the entries, so that an
    /// entry holds one reference only (moved and dropped without a second
    /// release).
    @usableFromInline
    internal struct _Borrowing {
        @usableFromInline let lender: UnsafeMutableRawPointer
        @usableFromInline let borrower: Unmanaged<AnyObject>

        @inlinable init(lender: UnsafeMutableRawPointer, borrower: Unmanaged<AnyObject>) {
            self.lender = lender
            self.borrower = borrower
        }
    }

    /// Keeps `node`, whose items a copy for a write borrows (see
    /// `_ListNode+Lending.swift`), until the settle resolves it. Only
    /// while ``hasRoom``.
    ///
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    func keep<Element>(lender node: _ListNode<Element>, borrower: _ListNode<Element>, shape: Int) {
        #if FASTSTORE_INTERNAL_CHECKS
        precondition(hasRoom, "_NodeRecycler: a lender kept past the limit (its borrower would be held unpaired)")
        #endif
        _keep(_Entry(lender: node, shape: shape))
        (_borrowers.unsafelyUnwrapped + _borrowerCount).initialize(
            to: _Borrowing(
                lender: Unmanaged.passUnretained(node).toOpaque(),
                borrower: Unmanaged.passRetained(borrower as AnyObject)))
        _borrowerCount &+= 1
    }

    /// Whether `node` borrows from a node this recycler keeps: a borrower
    /// of this drain, which the recycler holds (one reference).
    ///
    /// - Complexity: O(borrowers of this batch); O(1) when none.
    @inlinable
    func lends(to node: UnsafeMutableRawPointer) -> Bool {
        guard _borrowerCount != 0 else { return false }
        let borrowers = _borrowers.unsafelyUnwrapped
        for i in 0 ..< _borrowerCount where borrowers[i].borrower.toOpaque() == node { return true }
        return false
    }

    /// Lets go of a borrower of `lender`, whose lending was just resolved.
    /// A lender lent again after its borrower stopped borrowing (see
    /// `_ListNode._stopBorrowing()`) has one entry per borrower; each
    /// entry's resolution lets one go, and every borrower of `lender` is
    /// resolved by then.
    ///
    /// - Complexity: O(borrowers of this batch).
    @inlinable
    func _releaseBorrower(lentBy lender: UnsafeMutableRawPointer) {
        let borrowers = _borrowers.unsafelyUnwrapped
        for i in 0 ..< _borrowerCount where borrowers[i].lender == lender {
            let borrower = borrowers[i].borrower
            _borrowerCount &-= 1
            borrowers[i] = borrowers[_borrowerCount]
            // NB: after the list is consistent: its last release may run
            // the `deinit`s of values it alone held.
            borrower.release()
            return
        }
        #if FASTSTORE_INTERNAL_CHECKS
        preconditionFailure("_NodeRecycler: a lender settled without a borrower held")
        #endif
    }
}
