#if FASTSTORE_INTERNAL_CHECKS
/// The internal-checks build's rule for checking a collection's whole
/// structure after a write (each collection's `_checkAfterWrite`; the
/// check is O(n)).
///
/// A collection of up to ``everyWriteUpTo`` elements is checked whole after
/// every write. A larger one, up to ``atMost``, is checked whole after one
/// of every `count / everyWriteUpTo` writes of such collections made on the
/// thread (one decision per write: an identified list decides once for its
/// tree and its index), so that a write costs about what checking
/// `everyWriteUpTo` to twice as many elements costs, amortized; a fault in
/// a collection written again and again is still found, within about
/// `count / everyWriteUpTo` of its writes. A write not followed by the
/// whole check runs only the collection's cheaper checks, if it has some
/// (a list checks its root's shape). Past ``atMost``, no write is followed
/// by the whole check. Counted per thread: which write is checked does not
/// depend on other threads.
@usableFromInline
internal enum _WholeCheck {
    @usableFromInline static let everyWriteUpTo = 1_024
    @usableFromInline static let atMost = 8_192

    /// Whether a write to a collection of `count` elements is followed by
    /// a check of its whole structure.
    ///
    /// - Complexity: O(1).
    @inlinable
    static func isDue(count: Int) -> Bool {
        if count <= everyWriteUpTo { return true }
        if count > atMost { return false }
        return _TrackingContext._withCurrent { context in
            context.largeCollectionWrites &+= 1
            return context.largeCollectionWrites % (count / everyWriteUpTo) == 0
        }
    }
}
#endif
