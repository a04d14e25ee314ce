
extension Versioned: CustomStringConvertible {
    /// The value's description. Records a read of the whole node.
    public var description: String { String(describing: value) }
}

extension Versioned: CustomDebugStringConvertible {
    /// The value's description with the node's identity and stamp, as in
    /// `Versioned(#3 v17: Settings(theme: .dark))`.
    public var debugDescription: String {
        "Versioned(\(_box.nodeID) \(_box.version): \(String(reflecting: _box.value)))"
    }
}
