extension Versioned: Encodable where Value: Encodable {
    /// Encodes the node's value alone, as if it were not versioned (for a
    /// ``StatePatch``'s own encoder, a reference to the node instead).
    public func encode(to encoder: any Encoder) throws {
        if _patchEncodeNode(self, to: encoder) { return }
        try value.encode(to: encoder)
    }
}

extension Versioned: Decodable where Value: Decodable {
    /// Decodes a value into a new node (new identity, fresh stamp); when a
    /// ``StatePatch`` applies, the older node, as it is or rebuilt.
    public init(from decoder: any Decoder) throws {
        if let node = try _patchDecodeNode(Versioned.self, from: decoder) {
            self = node
            return
        }
        self.init(try Value(from: decoder))
    }
}
