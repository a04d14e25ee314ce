extension VersionedList: CustomStringConvertible, CustomDebugStringConvertible {
    /// The elements as an array literal, like `Array`'s. Records a read of
    /// the whole list.
    public var description: String {
        _recordWholeRead(_nodeID)
        return _describe(debug: false)
    }

    /// `VersionedList([...])` with the elements' debug descriptions.
    /// Records a read of the whole list.
    public var debugDescription: String {
        _recordWholeRead(_nodeID)
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
