extension Versioned: Equatable where Value: Equatable {
    /// Whether two nodes hold equal values.
    ///
    /// Nodes with the same identity and stamp are equal without comparing
    /// their values. Inside a selector, comparing records a read of both
    /// nodes as a whole: whatever `==` could look at is a dependency.
    ///
    /// - Complexity: O(1) when both share identity and stamp, else the cost
    ///   of comparing the values.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        _Tracking.recordWholeRead(lhs._box.nodeID)
        _Tracking.recordWholeRead(rhs._box.nodeID)
        if lhs._box === rhs._box { return true }
        if lhs._box.nodeID == rhs._box.nodeID && lhs._box.version == rhs._box.version { return true }
        return lhs._box.value == rhs._box.value
    }
}

extension Versioned: Hashable where Value: Hashable {
    /// Hashes the node's value (not its identity or stamp), consistently with
    /// `==`. Records a read of the whole node.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }
}
