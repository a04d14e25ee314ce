extension Versioned: Encodable where Value: Encodable {
    /// Encodes the node's value alone, as if it were not versioned.
    @inlinable
    public func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
    }
}

extension Versioned: Decodable where Value: Decodable {
    /// Decodes a value into a new node (new identity, fresh stamp).
    @inlinable
    public init(from decoder: any Decoder) throws {
        self.init(try Value(from: decoder))
    }
}
