@_spi(Reflection) import Swift

// The write set between two versions of one versioned tree: what a store
// journals for a history move (undo, redo, jump), so that consumers take the
// same skipping route as for a drain.
//
// Soundness rests on the tracking contract: same NodeID and same stamp means
// same contents, so a shared subtree costs one comparison. Where the diff
// cannot look inside, it emits the write a reducer replacing that part would
// have journaled (`.field(range)`, `.element(k)`, `.content`), never nothing.

/// A versioned type the history diff can look into: two versions of one
/// node (same ``NodeID``) yield the writes that turn one into the other.
@usableFromInline
internal protocol _VersionDiffable: VersionedValue {
    /// Appends to `diff` writes covering every difference from `older` (a
    /// version of the same node) to `self`, at least as broad as the
    /// journal's kinds for the same change; at least one write on this node
    /// when the stamps differ (so `.whole` readers, `version` among them,
    /// are told).
    func _diffWrites(from older: Self, into diff: inout _TreeDiff)

    /// A copy of this version whose node storage carries a fresh stamp,
    /// contents unchanged, or `nil` when the type cannot make one.
    func _restamped() -> Self?
}

extension _VersionDiffable {
    @usableFromInline func _restamped() -> Self? { nil }

    /// Diffs two copies of `Self` read from raw storage (a struct field).
    /// Returns `false` when they are not versions of one node: the caller
    /// then writes the whole field.
    static func _diffStored(
        old: UnsafeRawPointer, new: UnsafeRawPointer, into diff: inout _TreeDiff
    ) -> Bool {
        let older = old.load(as: Self.self)
        let newer = new.load(as: Self.self)
        let a = older._trackingIdentity, b = newer._trackingIdentity
        guard a.node == b.node else { return false }
        if a.version != b.version { newer._diffWrites(from: older, into: &diff) }
        return true
    }
}

/// The writes between two versions of a tree, as the store's journal would
/// hold them (see ``_VersionDiffable``).
@usableFromInline
internal struct _TreeDiff {
    @usableFromInline var writes: [(node: NodeID, kind: _WriteKind)] = []
    /// Nodes compared (the cost: shared subtrees count one).
    @usableFromInline var visited = 0

    @inlinable init() {}

    @inlinable
    mutating func write(_ node: NodeID, _ kind: _WriteKind) {
        writes.append((node, kind))
    }

    /// The state to publish for a history move from `current` to `target`,
    /// with the writes between them.
    ///
    /// The target's root gets a fresh stamp (a copy of its root box, same
    /// contents): the change log is keyed by the root stamp a drain
    /// produced, and `target`'s own stamp names the drain that first made
    /// it, older than `current`'s. A fresh stamp is legitimate (same stamp
    /// means same contents, not the converse) and makes the move a step
    /// forward in stamp order, chained from `current`'s root stamp.
    ///
    /// Returns `chained: false` (consumers then compare) when the root is
    /// another node, or a versioned type without a fresh-stamp copy; `nil`
    /// for plain state.
    ///
    /// - Complexity: O(nodes on the paths that differ × their stored
    ///   fields), plus the collections' structural diffs: O(c × log n) for
    ///   c changed elements.
    static func republication<State>(
        from current: State, to target: State
    ) -> (state: State, writes: [(node: NodeID, kind: _WriteKind)], chained: Bool)? {
        guard let type = State.self as? any _VersionDiffable.Type else { return nil }
        func open<Node: _VersionDiffable>(_: Node.Type) -> (State, [(node: NodeID, kind: _WriteKind)], Bool) {
            let old = current as! Node, new = target as! Node
            guard old.nodeID == new.nodeID, let restamped = new._restamped() else { return (target, [], false) }
            var diff = _TreeDiff()
            restamped._diffWrites(from: old, into: &diff)
            return (restamped as! State, diff.writes, true)
        }
        let (state, writes, chained) = open(type)
        return (state, writes, chained)
    }

    /// Diffs the stored fields of two values of a node `node`'s type
    /// `Value`: equal bytes are the same value; differing bytes of a
    /// versioned field holding two versions of one node are diffed below
    /// (the field itself is then passed through); other differing bytes
    /// write the field. Returns whether it wrote `node`.
    mutating func diffValue<Value>(of node: NodeID, old: Value, new: Value) -> Bool {
        visited &+= 1
        return withUnsafeBytes(of: old) { old in
            withUnsafeBytes(of: new) { new in
                guard let layout = _FieldLayout.of(Value.self) else {
                    if _bytesEqual(old.baseAddress, new.baseAddress, old.count) { return false }
                    write(node, .content)
                    return true
                }
                var wrote = false
                var passedThrough = false
                for field in layout {
                    let a = old.baseAddress! + field.offset, b = new.baseAddress! + field.offset
                    if _bytesEqual(a, b, field.size) { continue }
                    if let nodeType = field.nodeType, nodeType._diffStored(old: a, new: b, into: &self) {
                        passedThrough = true
                    } else {
                        // NB: a field past 2 GiB has no range: a content
                        // write, as for a member tracked coarsely.
                        write(node, _FieldRange(fitting: field.offset, size: field.size).map { .field($0) } ?? .content)
                        wrote = true
                    }
                }
                if passedThrough && !wrote {
                    write(node, .passThrough)
                    wrote = true
                }
                return wrote
            }
        }
    }
}

@inlinable
internal func _bytesEqual(_ a: UnsafeRawPointer?, _ b: UnsafeRawPointer?, _ count: Int) -> Bool {
    guard count > 0, let a, let b else { return true }
    return memcmp(a, b, count) == 0
}

/// The stored fields of a struct, for the history diff: offset, size and,
/// for a versioned field, its type. Read once per type (the standard
/// library's `_forEachField`) and cached.
internal struct _FieldLayout {
    let offset: Int
    let size: Int
    let nodeType: (any _VersionDiffable.Type)?

    private static let _lock = _Lock()
    nonisolated(unsafe) private static var _cache: [ObjectIdentifier: [_FieldLayout]?] = [:]

    /// The fields of `type`, or `nil` when it is not a struct whose every
    /// stored field the runtime describes (then the diff compares it whole).
    static func of(_ type: Any.Type) -> [_FieldLayout]? {
        let key = ObjectIdentifier(type)
        _lock.lock()
        if let cached = _cache[key] {
            _lock.unlock()
            return cached
        }
        _lock.unlock()
        var layout: [_FieldLayout]? = nil
        if _SelectionTracking._kind(of: type) == .struct {
            var fields: [_FieldLayout] = []
            let complete = _forEachField(of: type, options: []) { _, offset, fieldType, _ in
                fields.append(_FieldLayout(
                    offset: offset, size: _SelectionTracking._size(of: fieldType),
                    nodeType: fieldType as? any _VersionDiffable.Type))
                return true
            }
            if complete { layout = fields }
        }
        _lock.lock()
        _cache[key] = .some(layout)
        _lock.unlock()
        return layout
    }
}

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
