/// The ids of the consumers that read one thing (a node as a whole, one of
/// its elements or fields): a set of small integers that costs no
/// allocation while it holds one id, the usual case (a row consumer reads
/// its own element, and nobody else does).
///
/// Grows from one id inline, to a short array scanned linearly, to a `Set`
/// past ``_arrayLimit`` ids, so that removing one of many readers stays
/// O(1) expected.
@usableFromInline
internal struct _ReaderSet {
    @usableFromInline
    internal enum _Storage {
        case empty
        case one(Int)
        case few([Int])
        case many(Set<_IDKey>)
    }

    @usableFromInline var _storage: _Storage = .empty

    @inlinable init() {}

    @inlinable static var _arrayLimit: Int { 16 }

    @inlinable
    var isEmpty: Bool {
        if case .empty = _storage { return true }
        return false
    }

    @inlinable
    var count: Int {
        switch _storage {
        case .empty: return 0
        case .one: return 1
        case .few(let ids): return ids.count
        case .many(let ids): return ids.count
        }
    }

    /// Adds `id` (not already present: each consumer registers a
    /// dependency once).
    ///
    /// - Complexity: O(1) amortized.
    @inlinable
    mutating func insert(_ id: Int) {
        switch _storage {
        case .empty:
            _storage = .one(id)
        case .one(let first):
            _storage = .few([first, id])
        case .few(var ids):
            _storage = .empty  // NB: releases the payload so the append is in place.
            if ids.count < Self._arrayLimit {
                ids.append(id)
                _storage = .few(ids)
            } else {
                var set = Set(ids.lazy.map(_IDKey.init))
                set.insert(_IDKey(id))
                _storage = .many(set)
            }
        case .many(var ids):
            _storage = .empty
            ids.insert(_IDKey(id))
            _storage = .many(ids)
        }
    }

    /// Removes `id` if present.
    ///
    /// - Complexity: O(1) expected (O(``_arrayLimit``) while short).
    @inlinable
    mutating func remove(_ id: Int) {
        switch _storage {
        case .empty:
            return
        case .one(let first):
            if first == id { _storage = .empty }
        case .few(var ids):
            guard let k = ids.firstIndex(of: id) else { return }
            _storage = .empty
            ids.swapAt(k, ids.count - 1)
            ids.removeLast()
            _storage = ids.count == 1 ? .one(ids[0]) : .few(ids)
        case .many(var ids):
            _storage = .empty
            ids.remove(_IDKey(id))
            _storage = ids.isEmpty ? .empty : .many(ids)
        }
    }

    /// The one id, when there is exactly one.
    @inlinable
    var sole: Int? {
        if case .one(let id) = _storage { return id }
        return nil
    }

    @inlinable
    func contains(_ id: Int) -> Bool {
        switch _storage {
        case .empty: return false
        case .one(let first): return first == id
        case .few(let ids): return ids.contains(id)
        case .many(let ids): return ids.contains(_IDKey(id))
        }
    }

    /// Appends every id to `candidates`.
    @inlinable
    func append(to candidates: inout [Int]) {
        switch _storage {
        case .empty: return
        case .one(let first): candidates.append(first)
        case .few(let ids): candidates.append(contentsOf: ids)
        case .many(let ids): for key in ids { candidates.append(key.id) }
        }
    }
}
