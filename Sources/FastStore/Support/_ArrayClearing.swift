extension Array {
    /// Empties the array, keeping its storage, for the scratch buffers a
    /// dispatch reuses (a consume's plan, a selector's recorded reads, a
    /// hub's candidates).
    ///
    /// NB: `removeAll(keepingCapacity: true)` goes through the generic
    /// `replaceSubrange` (about a hundred instructions even for one
    /// element); a few `removeLast()` calls cost a few each.
    ///
    /// - Complexity: O(`count`).
    @inlinable @inline(__always)
    internal mutating func _removeAllKeepingCapacity() {
        if count <= 16 {
            while !isEmpty { removeLast() }
        } else {
            removeAll(keepingCapacity: true)
        }
    }
}
