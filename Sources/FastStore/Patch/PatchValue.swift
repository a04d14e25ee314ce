/// A value inside a ``StatePatch``: what a `Codable` value encodes to,
/// as a small tree (the JSON data model).
///
/// Numbers compare by value across the two cases: `.int(1) == .double(1)`,
/// so a patch that went through JSON (where `1.0` may come back as `1`) is
/// equal to the original. Otherwise equality is exact, as a patch must tell
/// every difference: two doubles are equal when their bits are (`0.0` and
/// `-0.0` differ, a NaN equals itself), two strings when their Unicode
/// scalars are (`"é"` and `"e\u{301}"` differ). Two limits: the keys of
/// an `.object` are `String`s and compare as such (canonically); and the
/// cross-case rule is not transitive at zero (`.int(0)` equals both
/// `.double(0.0)` and `.double(-0.0)`, which differ). JSON writes `-0.0` as
/// `-0`, which decodes as `.int(0)`: a patch that went through JSON loses
/// the sign of a zero.
public enum PatchValue: Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([PatchValue])
    case object([String: PatchValue])

    /// A JSON-like rendering (object keys sorted), for descriptions.
    public var description: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s): return String(reflecting: s)
        case .array(let a): return "[" + a.map(\.description).joined(separator: ", ") + "]"
        case .object(let o):
            if o.isEmpty { return "{}" }
            return "{" + o.keys.sorted().map { "\($0): \(o[$0]!.description)" }.joined(separator: ", ") + "}"
        }
    }
}

extension PatchValue: Hashable {
    public static func == (lhs: PatchValue, rhs: PatchValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): return Double(a) == b && Int64(exactly: b) == a
        case (.string(let a), .string(let b)): return a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)): return a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(1); hasher.combine(b)
        case .int(let i): hasher.combine(2); hasher.combine(i)
        case .double(let d):
            // NB: an integral double hashes as the equal `.int`.
            if let i = Int64(exactly: d) { hasher.combine(2); hasher.combine(i) } else { hasher.combine(3); hasher.combine(d) }
        case .string(let s): hasher.combine(4); hasher.combine(s)
        case .array(let a): hasher.combine(5); hasher.combine(a)
        case .object(let o): hasher.combine(6); hasher.combine(o)
        }
    }
}

extension PatchValue: Codable {
    /// Encodes as the plain JSON value (`null`, `true`, `3`, `"a"`, `[...]`, `{...}`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .int(let i): try container.encode(i)
        case .double(let d): try container.encode(d)
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }

    /// Decodes any JSON-like value; whole numbers come back as `.int`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let b = try? container.decode(Bool.self) { self = .bool(b) }
        else if let i = try? container.decode(Int64.self) { self = .int(i) }
        else if let d = try? container.decode(Double.self) { self = .double(d) }
        else if let s = try? container.decode(String.self) { self = .string(s) }
        else if let a = try? container.decode([PatchValue].self) { self = .array(a) }
        else { self = .object(try container.decode([String: PatchValue].self)) }
    }
}
