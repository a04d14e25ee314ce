extension IdentifiedList: ExpressibleByArrayLiteral {
    /// A list of the literal's elements.
    ///
    /// - Precondition: the ids are unique.
    @inlinable
    public init(arrayLiteral elements: Element...) {
        self.init(elements)
    }
}

extension IdentifiedList: Equatable where Element: Equatable {
    /// Whether both hold equal elements in the same order. Records a read of
    /// both; skips the nodes two versions share.
    @inlinable
    public static func == (lhs: IdentifiedList, rhs: IdentifiedList) -> Bool {
        lhs._list == rhs._list
    }
}

extension IdentifiedList: Hashable where Element: Hashable {
    /// Hashes the elements in order. Records a read of the whole list.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        _list.hash(into: &hasher)
    }
}

extension IdentifiedList: Encodable where Element: Encodable {
    /// Encodes the elements as a plain array. Records a read of the whole list.
    public func encode(to encoder: any Encoder) throws {
        _Tracking.recordWholeRead(_list._nodeID)
        if _patchEncodeNode(self, to: encoder) { return }
        var container = encoder.unkeyedContainer()
        try _list._forEachLeaf { leaf in
            for element in leaf.elements { try container.encode(element) }
        }
    }
}

extension IdentifiedList: Decodable where Element: Decodable {
    /// Decodes a plain array, with a new identity.
    ///
    /// Throws `DecodingError.dataCorrupted` on a duplicate id.
    public init(from decoder: any Decoder) throws {
        if let list = try _patchDecodeNode(IdentifiedList.self, from: decoder) {
            self = list
            return
        }
        // NB: the binary decoder reads the elements into an array of the
        // count it knows; the bulk build finds a duplicate id itself.
        let elements = try (decoder as? _ValueDecoder)?.decodeArray(of: Element.self) ?? [Element](from: decoder)
        var list = IdentifiedList()
        if let duplicate = elements.withUnsafeBufferPointer({ list._rebuildUnlessDuplicate($0, slots: nil) }) {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath, debugDescription: "IdentifiedList: duplicate id \(duplicate)"))
        }
        self = list
    }
}

extension IdentifiedList: CustomStringConvertible, CustomDebugStringConvertible {
    /// The elements as an array literal. Records a read of the whole list.
    public var description: String {
        _Tracking.recordWholeRead(_list._nodeID)
        return _describe(debug: false)
    }

    /// `IdentifiedList([...])`. Records a read of the whole list.
    public var debugDescription: String {
        _Tracking.recordWholeRead(_list._nodeID)
        return "IdentifiedList(" + _describe(debug: true) + ")"
    }

    private func _describe(debug: Bool) -> String {
        var result = "["
        var first = true
        _list._forEachLeaf { leaf in
            for element in leaf.elements {
                if !first { result += ", " }
                first = false
                if debug {
                    debugPrint(element, terminator: "", to: &result)
                } else {
                    print(element, terminator: "", to: &result)
                }
            }
        }
        return result + "]"
    }
}

#if FASTSTORE_INTERNAL_CHECKS
extension IdentifiedList {
    /// Checks both trees, that leaf labels increase along the list (below
    /// the label limit), and that the index holds exactly one entry per
    /// element, of its id's fragment and its leaf's label (so a lookup
    /// finds each id).
    ///
    /// - Complexity: O(n log n).
    @usableFromInline
    internal func _invariantCheck() {
        _list._invariantCheck()
        _labels._invariantCheck()
        precondition(_labels.count == _list._count, "IdentifiedList: \(_labels.count) entries for \(_list._count) elements")
        var previous: UInt64? = nil
        var expected: [UInt64] = []
        _list._forEachLeaf { leaf in
            guard leaf.width > 0 else { return }
            if let previous { precondition(leaf.label > previous, "IdentifiedList: leaf labels out of order") }
            precondition(leaf.label != 0 && leaf.label & Self._hintMask == 0 && leaf.label < Self._labelLimit,
                         "IdentifiedList: a leaf not labelled, or labelled off the multiples of 64 below the limit")
            previous = leaf.label
            for element in leaf.elements {
                expected.append(_IdentityIndex.entry(_IdentityIndex.fragment(of: element.id), leaf.label))
            }
        }
        var filed: [UInt64] = []
        _labels.forEach { filed.append($0 & ~Self._hintMask) }
        precondition(filed.sorted() == expected.sorted(), "IdentifiedList: the index's entries are not the elements' fragments and leaves")
    }
}
#endif

extension IdentifiedList: CustomReflectable {
    /// A mirror showing the elements (what `Mirror` and `dump` see). Records
    /// a read of the whole list.
    public var customMirror: Mirror {
        _Tracking.recordWholeRead(_list._nodeID)
        var elements: [Element] = []
        elements.reserveCapacity(_list._count)
        _list._forEachLeaf { leaf in for element in leaf.elements { elements.append(element) } }
        return Mirror(self, unlabeledChildren: elements, displayStyle: .collection)
    }
}
