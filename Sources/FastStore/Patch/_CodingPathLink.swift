/// A binary coder of one value (`_ValueEncoder`, `_ValueDecoder`), seen
/// by the values below it: what their coding paths start with.
internal protocol _CodingPathOwner: AnyObject {
    var codingPath: [any CodingKey] { get }
}

/// Where a value stands in what the binary coders encode or decode: its
/// parent's coder, and its key or position there. The coding path is built
/// from it only when asked for (an error, a value's `codingPath`), so that
/// coding a value allocates no path.
internal struct _CodingPathLink {
    let parent: (any _CodingPathOwner)?
    let key: (any CodingKey)?
    /// The position in an unkeyed container, or -1.
    let index: Int

    static var root: _CodingPathLink { _CodingPathLink(parent: nil, key: nil, index: -1) }

    init(parent: (any _CodingPathOwner)?, key: (any CodingKey)?, index: Int = -1) {
        self.parent = parent
        self.key = key
        self.index = index
    }

    init(parent: any _CodingPathOwner, index: Int) {
        self.init(parent: parent, key: nil, index: index)
    }

    var codingPath: [any CodingKey] {
        var path = parent?.codingPath ?? []
        if let key { path.append(key) } else if index >= 0 { path.append(_PatchEncoder._Key(intValue: index)) }
        return path
    }
}
