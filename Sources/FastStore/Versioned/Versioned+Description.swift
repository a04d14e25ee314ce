extension Versioned: CustomStringConvertible {
    /// The value's description. Records a read of the whole node.
    public var description: String { String(describing: value) }
}

extension Versioned: CustomDebugStringConvertible {
    /// The value's description with the node's identity and stamp, as in
    /// `Versioned(#3 v17: Settings(theme: .dark))`. Records a read of the
    /// whole node.
    public var debugDescription: String {
        "Versioned(\(_box.nodeID) \(version): \(String(reflecting: value)))"
    }
}

extension Versioned: CustomReflectable {
    /// A mirror showing the value (what `Mirror` and `dump` see). Records a
    /// read of the whole node.
    public var customMirror: Mirror {
        Mirror(self, children: ["value": value], displayStyle: .struct)
    }
}
