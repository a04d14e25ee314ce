extension VersionedList: Encodable where Element: Encodable {
    /// Encodes the elements as a plain array. Records a read of the whole list.
    ///
    /// - Complexity: O(n).
    public func encode(to encoder: any Encoder) throws {
        _Tracking.recordWholeRead(_nodeID)
        if _patchEncodeNode(self, to: encoder) { return }
        var container = encoder.unkeyedContainer()
        try _root.forEachLeaf { leaf in try container.encode(contentsOf: leaf.elements) }
    }
}

extension VersionedList: Decodable where Element: Decodable {
    /// Decodes a plain array into a list with a new identity.
    ///
    /// - Complexity: O(n).
    public init(from decoder: any Decoder) throws {
        if let list = try _patchDecodeNode(VersionedList.self, from: decoder) {
            self = list
            return
        }
        var container = try decoder.unkeyedContainer()
        var elements = ContiguousArray<Element>()
        if let count = container.count { elements.reserveCapacity(count) }
        while !container.isAtEnd { elements.append(try container.decode(Element.self)) }
        self.init(elements)
    }
}

extension VersionedList: ExpressibleByArrayLiteral {
    /// A list of the literal's elements, with a new identity.
    @inlinable
    public init(arrayLiteral elements: Element...) {
        self.init(elements)
    }
}
