/// An entry of a `_HistoryTimeline`.
internal protocol _TimelineEntry {
    /// Whether the entry holds its whole state, not only a patch.
    var holdsState: Bool { get }
}

/// The entries of a ``StoreHistory`` as a plain state machine (its lock
/// lives in `StoreHistory`): numbered entries, a current one, a limit.
internal struct _HistoryTimeline<Entry: _TimelineEntry> {
    /// The kept entries, `storage[head...]`, numbered from `firstIndex`.
    // NB: evicting advances `head` and compacts when half the storage is
    // dead: O(1) amortized per recorded entry.
    private var storage: [Entry?] = []
    /// `holdsState` of each entry of `storage` (`false` for an evicted
    /// one), apart from the entries: the search for the nearest entry
    /// holding its state reads a plain array, not the entries, which are
    /// generic and cost a metadata lookup each when read unspecialized.
    private var holding: [Bool] = []
    private var head = 0
    private var firstIndex = 0
    private let limit: Int
    /// The number of the entry the store's state is at.
    var current = 0

    init(limit: Int) { self.limit = limit }

    /// A timeline holding `entries`, numbered from `first`, at entry
    /// `current`. Past the limit, the entries farthest back go, then the
    /// farthest ahead: the `limit - 1` entries before `current` are kept
    /// first (what undo reaches), then those after it (what redo reaches).
    ///
    /// - Precondition: `limit >= 1`; `current` numbers one of `entries`.
    init(limit: Int, first: Int, entries: [Entry], current: Int) {
        precondition(limit >= 1 && first <= current && current < first + entries.count,
                     "FastStore: internal error: restoring history entry \(current) of \(first)..<\(first + entries.count) with limit \(limit)")
        self.limit = limit
        // NB: `current - first` and `entries.count` are small: no overflow
        // whatever `limit` (`.entries(.max)` included).
        let back = min(current - first, limit - 1)
        let ahead = min(first + entries.count - 1 - current, limit - 1 - back)
        storage = entries[(current - first - back) ... (current - first + ahead)].map { $0 }
        holding = storage.map { $0!.holdsState }
        firstIndex = current - back
        self.current = current
    }

    private var count: Int { storage.count - head }

    /// The numbers of the kept entries (empty only before the first record).
    var indices: ClosedRange<Int> { firstIndex ... firstIndex + count - 1 }

    subscript(index: Int) -> Entry? {
        let k = index - firstIndex
        guard k >= 0, k < count else { return nil }
        return storage[head + k]
    }

    /// The kept entries numbered `range`, in order.
    ///
    /// - Precondition: every entry of `range` is kept.
    func entries(_ range: ClosedRange<Int>) -> ArraySlice<Entry?> {
        storage[(head + range.lowerBound - firstIndex) ... (head + range.upperBound - firstIndex)]
    }

    /// The kept entry nearest to `index` (below it first at equal distance)
    /// that holds its whole state, or is `current`; `index` itself when it
    /// does. With `toward`, only entries from `index` to `toward` are
    /// looked at.
    ///
    /// - Complexity: O(the distance to it), in a plain array of flags.
    func nearestHoldingState(to index: Int, toward end: Int? = nil) -> Int? {
        func known(_ i: Int) -> Bool { i == current || holding[head + i - firstIndex] }
        let kept = indices
        guard kept.contains(index) else { return nil }
        if known(index) { return index }
        let lower = end.map { max(kept.lowerBound, min($0, index)) } ?? kept.lowerBound
        let upper = end.map { min(kept.upperBound, max($0, index)) } ?? kept.upperBound
        var distance = 1
        while index - distance >= lower || index + distance <= upper {
            if index - distance >= lower, known(index - distance) { return index - distance }
            if index + distance <= upper, known(index + distance) { return index + distance }
            distance += 1
        }
        return nil
    }

    /// The kept entries of `range` that hold their whole state, in order.
    ///
    /// - Complexity: O(`range.count`), in a plain array of flags (no
    ///   generic entry is read: the history's code may run unspecialized,
    ///   where a copied entry is boxed).
    func holdingState(in range: ClosedRange<Int>) -> [Int] {
        var found: [Int] = []
        for i in range where holding[head + i - firstIndex] { found.append(i) }
        return found
    }

    /// Changes the kept entry numbered `index` (nothing when it is not kept).
    mutating func update(_ index: Int, _ body: (inout Entry) -> Void) {
        let k = index - firstIndex
        guard k >= 0, k < count, storage[head + k] != nil else { return }
        body(&storage[head + k]!)
        holding[head + k] = storage[head + k]!.holdsState
    }

    /// Appends the entry `make` builds for the next number, after dropping
    /// the entries after the current one (the redo branch), and evicts the
    /// oldest past the limit.
    ///
    /// - Complexity: O(1) amortized, plus the entries dropped.
    mutating func record(_ make: (Int) -> Entry) {
        if count > 0 {
            let keep = head + (current - firstIndex) + 1
            if keep < storage.count {
                storage.removeSubrange(keep...)
                holding.removeSubrange(keep...)
            }
        }
        let index = firstIndex + count
        let entry = make(index)
        storage.append(entry)
        holding.append(entry.holdsState)
        current = index
        while count > limit {
            storage[head] = nil
            holding[head] = false
            head += 1
            firstIndex += 1
        }
        if head > 32 && head * 2 > storage.count {
            storage.removeSubrange(..<head)
            holding.removeSubrange(..<head)
            head = 0
        }
    }
}
