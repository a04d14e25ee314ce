extension VersionedList: CustomStringConvertible, CustomDebugStringConvertible {
    /// The elements as an array literal, like `Array`'s. Records a read of
    /// the whole list.
    public var description: String {
        _Tracking.recordWholeRead(_nodeID)
        return _describe(debug: false)
    }

    /// `VersionedList([...])` with the elements' debug descriptions.
    /// Records a read of the whole list.
    public var debugDescription: String {
        _Tracking.recordWholeRead(_nodeID)
        return "VersionedList(" + _describe(debug: true) + ")"
    }

    @usableFromInline
    internal func _describe(debug: Bool) -> String {
        var result = "["
        var first = true
        _root.forEachLeaf { leaf in
            for element in leaf.elements {
                if !first { result += ", " }
                first = false
                if debug { debugPrint(element, terminator: "", to: &result) } else { print(element, terminator: "", to: &result) }
            }
        }
        return result + "]"
    }
}

extension VersionedList: CustomReflectable {
    /// A mirror showing the elements (what `Mirror` and `dump` see). Records
    /// a read of the whole list.
    public var customMirror: Mirror {
        _Tracking.recordWholeRead(_nodeID)
        var elements: [Element] = []
        elements.reserveCapacity(_root.count)
        _root.forEachLeaf { leaf in elements.append(contentsOf: leaf.elements) }
        return Mirror(self, unlabeledChildren: elements, displayStyle: .collection)
    }
}
