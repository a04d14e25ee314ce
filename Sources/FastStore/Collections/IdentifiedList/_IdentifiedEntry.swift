/// An element of an ``IdentifiedList`` with its order label.
///
/// Labels increase along the list, so the position of a label (and, through
/// the id→label map, of an id) is found by descending the tree: O(log n)
/// lookups by id without parent pointers. Labels are spaced when assigned
/// and relabeled locally when an insertion finds no gap.
@usableFromInline
internal struct _IdentifiedEntry<Element> {
    @usableFromInline var label: UInt64
    @usableFromInline var element: Element

    @inlinable @inline(__always) init(label: UInt64, element: Element) {
        self.label = label
        self.element = element
    }
}

extension _IdentifiedEntry: Sendable where Element: Sendable {}

/// Entries compare (and hash) by element only: labels are bookkeeping.
extension _IdentifiedEntry: Equatable where Element: Equatable {
    @inlinable static func == (lhs: Self, rhs: Self) -> Bool { lhs.element == rhs.element }
}

extension _IdentifiedEntry: Hashable where Element: Hashable {
    @inlinable func hash(into hasher: inout Hasher) { hasher.combine(element) }
}

extension _ListNode {
    /// The `k`th child of this branch, unretained: the walks below hold the
    /// root, which holds every node they visit, so they read the tree with
    /// no reference counting.
    @inlinable @inline(__always)
    func _unretainedChild(_ k: Int) -> Unmanaged<_ListNode> {
        UnsafeMutableRawPointer(_childrenPointer).assumingMemoryBound(to: Unmanaged<_ListNode>.self)[k]
    }

    /// The label of this subtree's first entry.
    @inlinable
    func firstLabel<E>() -> UInt64 where Element == _IdentifiedEntry<E> {
        var node = Unmanaged.passUnretained(self)
        while node._withUnsafeGuaranteedRef({ $0.height > 0 }) {
            node = node._withUnsafeGuaranteedRef { $0._unretainedChild(0) }
        }
        return node._withUnsafeGuaranteedRef { $0.elements[0].label }
    }

    /// The position of the entry labelled `label`, if any.
    ///
    /// - Complexity: O(log n) levels, each a binary search over the
    ///   children's first labels (O(log n) reads each).
    @inlinable
    func position<E>(ofLabel label: UInt64) -> Int? where Element == _IdentifiedEntry<E> {
        guard count > 0 else { return nil }
        // NB: `self` (the root, held by the caller) keeps the whole walk
        // alive: the nodes are read unretained.
        return withExtendedLifetime(self) {
            var node = Unmanaged.passUnretained(self)
            var offset = 0
            while node._withUnsafeGuaranteedRef({ $0.height > 0 }) {
                node = node._withUnsafeGuaranteedRef { branch in
                    var lo = 0, hi = branch.width - 1
                    while lo < hi {
                        let mid = (lo + hi + 1) / 2
                        let first = branch._unretainedChild(mid)._withUnsafeGuaranteedRef { $0.firstLabel() }
                        if first <= label { lo = mid } else { hi = mid - 1 }
                    }
                    let counts = branch.counts
                    for k in 0 ..< lo { offset += counts[k] }
                    return branch._unretainedChild(lo)
                }
            }
            return node._withUnsafeGuaranteedRef { leaf -> Int? in
                let elements = leaf.elements
                var lo = 0, hi = elements.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if elements[mid].label < label { lo = mid + 1 } else { hi = mid }
                }
                guard lo < elements.count, elements[lo].label == label else { return nil }
                return offset + lo
            }
        }
    }
}
