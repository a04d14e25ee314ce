extension VersionedDictionary: ExpressibleByDictionaryLiteral {
    /// A dictionary of the literal's pairs.
    ///
    /// - Precondition: the keys are unique ("Duplicate key ...").
    @inlinable
    public init(dictionaryLiteral elements: (Key, Value)...) {
        self.init(uniqueKeysWithValues: elements)
    }
}

extension VersionedDictionary: Equatable where Value: Equatable {
    /// Whether both hold the same pairs. Records a read of both.
    ///
    /// - Complexity: O(1) for the same version; skips shared subtrees.
    @inlinable
    public static func == (lhs: VersionedDictionary, rhs: VersionedDictionary) -> Bool {
        _Tracking.recordWholeRead(lhs._nodeID)
        _Tracking.recordWholeRead(rhs._nodeID)
        guard lhs._count == rhs._count else { return false }
        return _MapNode.entriesEqual(lhs._root, rhs._root, shift: 0)
    }
}

extension VersionedDictionary: Hashable where Value: Hashable {
    /// Hashes the pairs independently of their order. Records a read.
    public func hash(into hasher: inout Hasher) {
        _Tracking.recordWholeRead(_nodeID)
        var combined = 0
        _root.forEachEntry { e in
            var h = Hasher()
            h.combine(e.key)
            h.combine(e.value)
            combined ^= h.finalize()
        }
        hasher.combine(_count)
        hasher.combine(combined)
    }
}

extension VersionedDictionary: Encodable where Key: Encodable, Value: Encodable {
    /// Encodes as a `Dictionary` does. Records a read of the whole dictionary.
    public func encode(to encoder: any Encoder) throws {
        _Tracking.recordWholeRead(_nodeID)
        if _patchEncodeNode(self, to: encoder) { return }
        var plain: [Key: Value] = [:]
        plain.reserveCapacity(_count)
        _root.forEachEntry { plain[$0.key] = $0.value }
        try plain.encode(to: encoder)
    }
}

extension VersionedDictionary: Decodable where Key: Decodable, Value: Decodable {
    /// Decodes what a `Dictionary` encodes, with a new identity.
    public init(from decoder: any Decoder) throws {
        if let dictionary = try _patchDecodeNode(VersionedDictionary.self, from: decoder) {
            self = dictionary
            return
        }
        let plain = try [Key: Value](from: decoder)
        self.init(uniqueKeysWithValues: plain.lazy.map { ($0.key, $0.value) })
    }
}

extension VersionedDictionary: CustomStringConvertible, CustomDebugStringConvertible {
    /// `[key: value, ...]` like `Dictionary`'s. Records a read.
    public var description: String {
        _Tracking.recordWholeRead(_nodeID)
        return _describe(debug: false)
    }

    /// `VersionedDictionary([key: value, ...])`. Records a read.
    public var debugDescription: String {
        _Tracking.recordWholeRead(_nodeID)
        return "VersionedDictionary(" + _describe(debug: true) + ")"
    }

    private func _describe(debug: Bool) -> String {
        if _count == 0 { return "[:]" }
        var result = "["
        var first = true
        _root.forEachEntry { e in
            if !first { result += ", " }
            first = false
            if debug {
                debugPrint(e.key, terminator: "", to: &result)
                result += ": "
                debugPrint(e.value, terminator: "", to: &result)
            } else {
                print(e.key, terminator: "", to: &result)
                result += ": "
                print(e.value, terminator: "", to: &result)
            }
        }
        return result + "]"
    }
}

extension VersionedDictionary: CustomReflectable {
    /// A mirror showing the pairs (what `Mirror` and `dump` see). Records a
    /// read of the whole dictionary.
    public var customMirror: Mirror {
        _Tracking.recordWholeRead(_nodeID)
        var pairs: [(key: Key, value: Value)] = []
        pairs.reserveCapacity(_count)
        _root.forEachEntry { pairs.append(($0.key, $0.value)) }
        return Mirror(self, unlabeledChildren: pairs, displayStyle: .dictionary)
    }
}
