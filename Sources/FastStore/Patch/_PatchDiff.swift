// The diff behind `StatePatch(from:to:)`: both versions encoded lazily
// (versioned nodes left as references), walked in parallel. Two references
// with the same identity and stamp are the same contents and are skipped
// without a look inside; other references are compared by the node type
// itself (`_PatchNode._patchDiff`), which expands one level, or for lists
// uses the structural `difference(from:)`.

/// A versioned type, seen by the patch machinery.
internal protocol _PatchNode {
    /// The node's identity and stamp: equal ones hold equal contents.
    var _patchIdentity: _TrackingIdentity { get }

    /// Appends to `operations` what turns `old` into this node at `path`.
    /// Returns `false`, appending nothing, when `old` is not of this type.
    func _patchDiff(from old: any _PatchNode, at path: PatchPath, into operations: inout [PatchOperation]) throws -> Bool

    /// The whole contents, plainly encoded.
    func _patchPlain() throws -> PatchValue

    /// The whole contents encoded, unordered collections marked (for the
    /// old-value checks).
    func _patchFullTree() throws -> _PatchTree
}

extension _PatchNode where Self: Encodable {
    func _patchFullTree() throws -> _PatchTree { try _PatchTree.of(self, lazy: false) }
}

/// Rebuilds a versioned type from its older version and a patch operation
/// below it (see `_PatchDecoder`).
internal protocol _PatchRebuildable {
    /// This version with `decoder`'s pending operation applied below it.
    func _patchRebuild(_ decoder: _PatchDecoder) throws -> Self
}

internal enum _PatchDiff {
    /// Appends what turns `old` into `new` at `path`.
    static func diff<T: Encodable>(_ old: T, _ new: T, at path: PatchPath, into operations: inout [PatchOperation]) throws {
        try diff(_PatchTree.of(old, lazy: true), _PatchTree.of(new, lazy: true), at: path, into: &operations)
    }

    /// For a list's structural changes with as many insertions as removals:
    /// the span of positions they touch when the list's values there equal
    /// the older list's, position by position (a sorted list sorted again,
    /// rows replaced by equal rows). Such an edit changes nothing: the list
    /// diffs leave it out, with the updates inside the span, so a batch that
    /// changes no value makes no operation. `nil` when some value differs
    /// (or nothing was inserted or removed).
    ///
    /// - Complexity: O(s × p) for a span of s positions, p the plain size
    ///   of an element; only when the counts match.
    static func unchangedSpan(
        _ changes: VersionedListChanges, old: (Int) throws -> PatchValue, new: (Int) throws -> PatchValue
    ) throws -> ClosedRange<Int>? {
        guard !changes.removed.isEmpty, changes.removed.count == changes.inserted.count else { return nil }
        let lower = min(changes.removed.min()!, changes.inserted.min()!)
        let upper = max(changes.removed.max()!, changes.inserted.max()!)
        for position in lower ... upper where try old(position) != new(position) { return nil }
        return lower ... upper
    }

    static func diff(_ old: _PatchTree, _ new: _PatchTree, at path: PatchPath, into operations: inout [PatchOperation]) throws {
        switch (old, new) {
        case (.node(let a), .node(let b)):
            if a._patchIdentity == b._patchIdentity { return }
            if try b._patchDiff(from: a, at: path, into: &operations) { return }
        case (.object(let a), .object(let b)):
            // NB: one key on each side, not the same one: an enum with
            // associated values changing case (`{"loading": …}` to
            // `{"done": …}`). Set whole: removing one key, then adding the
            // other, would pass through a value that does not decode.
            if a.count == 1 && b.count == 1 && a.keys.first != b.keys.first { break }
            for key in Set(a.keys).union(b.keys).sorted() {
                let child = path.appending(.field(key))
                switch (a[key], b[key]) {
                case (let x?, let y?): try diff(x, y, at: child, into: &operations)
                case (let x?, nil): operations.append(.set(path: child, old: try x.plain(), new: nil))
                case (nil, let y?): operations.append(.set(path: child, old: nil, new: try y.plain()))
                case (nil, nil): break
                }
            }
            return
        case (.array(let a), .array(let b)) where a.count == b.count:
            for i in a.indices { try diff(a[i], b[i], at: path.appending(.index(i)), into: &operations) }
            return
        case (.value(let a), .value(let b)):
            if a != b { operations.append(.set(path: path, old: a, new: b)) }
            return
        case (.unordered(let kind, let a), .unordered(_, let b)):
            if !_PatchUnorderedSupport.equal(kind, a, b) { operations.append(.set(path: path, old: a, new: b)) }
            return
        default: break
        }
        let a = try old.plain(), b = try new.plain()
        if a != b { operations.append(.set(path: path, old: a, new: b)) }
    }
}
