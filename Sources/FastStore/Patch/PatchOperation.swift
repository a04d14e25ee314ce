/// One step of a ``StatePatch``.
///
/// Every operation carries what it replaces as well as what it puts in
/// place, so that it can be checked against the state it applies to and
/// inverted without that state.
public enum PatchOperation: Hashable, Sendable {
    /// Replace the value at `path`: `old` is the value there before (`nil`:
    /// absent, as an optional field left out or a dictionary key not
    /// there), `new` the value after (`nil`: removed).
    case set(path: PatchPath, old: PatchValue?, new: PatchValue?)

    /// Remove and insert elements of the list at `path`: first `removed`,
    /// at their offsets in the list before (applied from the last one
    /// down; in an ``IdentifiedList`` found by id), then `inserted`, at
    /// their offsets in the list after (applied from the first one up).
    /// Updates of kept elements are further operations below `path`.
    case edit(path: PatchPath, removed: [PatchListEntry], inserted: [PatchListEntry])

    /// Where the operation applies.
    public var path: PatchPath {
        switch self {
        case .set(let path, _, _), .edit(let path, _, _): return path
        }
    }

    /// The operation that undoes this one.
    public var inverted: PatchOperation {
        switch self {
        case .set(let path, let old, let new): return .set(path: path, old: new, new: old)
        case .edit(let path, let removed, let inserted): return .edit(path: path, removed: inserted, inserted: removed)
        }
    }
}

/// An element removed from or inserted into a list by a ``PatchOperation``.
public struct PatchListEntry: Hashable, Sendable, Codable {
    /// The element's offset: in the list before for a removal, after for an
    /// insertion.
    public var offset: Int
    /// The element's id, in an ``IdentifiedList``.
    public var id: PatchValue?
    /// The element.
    public var value: PatchValue

    public init(offset: Int, id: PatchValue? = nil, value: PatchValue) {
        self.offset = offset
        self.id = id
        self.value = value
    }

    private enum CodingKeys: String, CodingKey { case offset = "at", id, value = "v" }
}

extension PatchOperation: Codable {
    // NB: one-letter keys: a patch is mostly paths and small values, and its
    // size on the wire is the point. `{"p":[…],"o":…,"n":…}` is a set (an
    // absent key an absent value), `{"p":[…],"r":[…],"i":[…]}` an edit.
    private enum CodingKeys: String, CodingKey { case path = "p", old = "o", new = "n", removed = "r", inserted = "i" }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .set(let path, let old, let new):
            try container.encode(path, forKey: .path)
            try container.encodeIfPresent(old, forKey: .old)
            try container.encodeIfPresent(new, forKey: .new)
        case .edit(let path, let removed, let inserted):
            try container.encode(path, forKey: .path)
            try container.encode(removed, forKey: .removed)
            try container.encode(inserted, forKey: .inserted)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let path = try container.decode(PatchPath.self, forKey: .path)
        if container.contains(.removed) || container.contains(.inserted) {
            self = .edit(
                path: path,
                removed: try container.decodeIfPresent([PatchListEntry].self, forKey: .removed) ?? [],
                inserted: try container.decodeIfPresent([PatchListEntry].self, forKey: .inserted) ?? [])
        } else {
            // NB: `contains` then `decode`, not `decodeIfPresent`: a JSON
            // `null` is the value `.null`, an absent key an absent value.
            self = .set(
                path: path,
                old: container.contains(.old) ? try container.decode(PatchValue.self, forKey: .old) : nil,
                new: container.contains(.new) ? try container.decode(PatchValue.self, forKey: .new) : nil)
        }
    }
}
