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

    @inlinable init(label: UInt64, element: Element) {
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
    /// The label of this subtree's first entry.
    @inlinable
    func firstLabel<E>() -> UInt64 where Element == _IdentifiedEntry<E> {
        var node = self
        while node.height > 0 { node = node.children[0] }
        return node.elements[0].label
    }

    /// The position of the entry labelled `label`, if any.
    ///
    /// - Complexity: O(log n) levels, each a binary search over the
    ///   children's first labels (O(log n) reads each).
    @inlinable
    func position<E>(ofLabel label: UInt64) -> Int? where Element == _IdentifiedEntry<E> {
        guard count > 0 else { return nil }
        var node = self
        var offset = 0
        while node.height > 0 {
            var lo = 0, hi = node.children.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if node.children[mid].firstLabel() <= label { lo = mid } else { hi = mid - 1 }
            }
            for k in 0 ..< lo { offset += node.counts[k] }
            node = node.children[lo]
        }
        var lo = 0, hi = node.elements.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if node.elements[mid].label < label { lo = mid + 1 } else { hi = mid }
        }
        guard lo < node.elements.count, node.elements[lo].label == label else { return nil }
        return offset + lo
    }
}
