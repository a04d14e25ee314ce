/// Where a ``PatchOperation`` applies: coding-key components from the root
/// of the state.
///
/// Rendered as Swift-like access: `rows[id: 42].title`, `mid.numbers[3]`,
/// `scores[key: "a"]`. Encoded as a JSON array: a field is a string, a
/// position an integer, an id `{"id": …}`, a dictionary key `{"key": …}`
/// (ids and keys as their own `Codable` representation).
public struct PatchPath: Hashable, Sendable, CustomStringConvertible {
    /// One step down the state.
    public enum Component: Hashable, Sendable {
        /// A struct field (or any keyed-container key).
        case field(String)
        /// A position in a ``VersionedList`` or a plain array.
        case index(Int)
        /// An element of an ``IdentifiedList``, by its id.
        case id(PatchValue)
        /// A value of a ``VersionedDictionary``, by its key.
        case key(PatchValue)
    }

    /// The steps, from the root.
    public var components: [Component]

    /// A path of `components` (empty: the whole state).
    public init(_ components: [Component] = []) { self.components = components }

    /// This path, one step further.
    public func appending(_ component: Component) -> PatchPath { PatchPath(components + [component]) }

    public var description: String {
        if components.isEmpty { return "(root)" }
        var result = ""
        for component in components {
            switch component {
            case .field(let name): result += result.isEmpty ? name : "." + name
            case .index(let i): result += "[\(i)]"
            case .id(let v): result += "[id: \(v)]"
            case .key(let v): result += "[key: \(v)]"
            }
        }
        return result
    }
}

extension PatchPath: Codable {
    private enum TagKeys: String, CodingKey { case id, key }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for component in components {
            switch component {
            case .field(let name): try container.encode(name)
            case .index(let i): try container.encode(i)
            case .id(let v):
                var tagged = container.nestedContainer(keyedBy: TagKeys.self)
                try tagged.encode(v, forKey: .id)
            case .key(let v):
                var tagged = container.nestedContainer(keyedBy: TagKeys.self)
                try tagged.encode(v, forKey: .key)
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var components: [Component] = []
        while !container.isAtEnd {
            switch try container.decode(PatchValue.self) {
            case .string(let name): components.append(.field(name))
            case .int(let i): components.append(.index(Int(i)))
            case .object(let o) where o.count == 1 && o["id"] != nil: components.append(.id(o["id"]!))
            case .object(let o) where o.count == 1 && o["key"] != nil: components.append(.key(o["key"]!))
            default:
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "PatchPath: not a path component"))
            }
        }
        self.components = components
    }
}
