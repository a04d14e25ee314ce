/// What changed between two versions of a list: offsets of removed,
/// inserted and updated elements, each sorted ascending.
///
/// The offsets follow a table view's batch-update convention:
/// - ``removed`` are offsets in the **older** version (delete these rows);
/// - ``inserted`` are offsets in the **newer** version (insert these rows);
/// - ``updated`` are offsets in the newer version of elements kept and
///   written in place, and ``updatedInOlder`` the same elements' offsets in
///   the older version, pairwise (reload these rows; UIKit's
///   `performBatchUpdates` takes reloads at their older offsets).
///
/// Elements keep their order between versions (a list has no "move"; a sort
/// is reported as every row removed and inserted), so applying removals
/// from the highest offset down, then insertions from the lowest up, then
/// updates, turns the older rows into the newer ones (``apply(to:from:)``).
public struct VersionedListChanges: Hashable, Sendable, CustomStringConvertible {
    /// Offsets in the older version of elements not in the newer, ascending.
    public var removed: [Int]
    /// Offsets in the newer version of elements not in the older, ascending.
    public var inserted: [Int]
    /// Offsets in the newer version of elements written in place since the
    /// older version (even if written with an equal value), ascending.
    public var updated: [Int]
    /// The offsets in the older version of the ``updated`` elements,
    /// pairwise with ``updated``.
    public var updatedInOlder: [Int]

    /// Changes with the given offsets.
    public init(removed: [Int] = [], inserted: [Int] = [], updated: [Int] = [], updatedInOlder: [Int] = []) {
        precondition(updated.count == updatedInOlder.count, "updated and updatedInOlder must pair up")
        self.removed = removed
        self.inserted = inserted
        self.updated = updated
        self.updatedInOlder = updatedInOlder
    }

    /// Whether nothing changed.
    public var isEmpty: Bool { removed.isEmpty && inserted.isEmpty && updated.isEmpty }

    public var description: String {
        "VersionedListChanges(removed: \(removed), inserted: \(inserted), updated: \(updated))"
    }

    /// The changes of a standard library `CollectionDifference`, as sorted
    /// offsets (no updates).
    ///
    /// NB: a `CollectionDifference` lists its removals in descending offset
    /// order; this type promises ascending offsets, which `apply(to:from:)`
    /// and `forEachBatch` rely on.
    @inlinable
    public init<T>(_ difference: CollectionDifference<T>) {
        self.init()
        for change in difference {
            switch change {
            case .remove(let offset, _, _): removed.append(offset)
            case .insert(let offset, _, _): inserted.append(offset)
            }
        }
        removed.sort()
        inserted.sort()
    }

    /// Turns `rows`, a copy of the older version, into the newer version
    /// `newer`, touching only the changed rows: what a table view's batch
    /// update does to its rows.
    ///
    /// - Complexity: O((r + i) × rows) for `Array`'s removals and
    ///   insertions, plus O(u) reads of `newer`.
    public func apply<C: RandomAccessCollection>(to rows: inout [C.Element], from newer: C) where C.Index == Int {
        for offset in removed.reversed() { rows.remove(at: offset) }
        for offset in inserted { rows.insert(newer[newer.startIndex + offset], at: offset) }
        for offset in updated { rows[offset] = newer[newer.startIndex + offset] }
    }

    /// Drives a table view style batch update: calls `delete` with the
    /// removed offsets (older version), `insert` with the inserted offsets
    /// (newer version) and `reload` with the updated offsets in the older
    /// version, each once (not called when empty).
    public func forEachBatch(
        delete: ([Int]) throws -> Void, insert: ([Int]) throws -> Void, reload: ([Int]) throws -> Void
    ) rethrows {
        if !removed.isEmpty { try delete(removed) }
        if !inserted.isEmpty { try insert(inserted) }
        if !updatedInOlder.isEmpty { try reload(updatedInOlder) }
    }
}
