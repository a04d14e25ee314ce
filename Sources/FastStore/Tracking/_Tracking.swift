#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a selector read from a versioned node.
@usableFromInline
internal enum _ReadKind: Hashable {
    /// The node's whole value (a selector returned it, iterated it, counted
    /// it, compared it). Any write at or below the node can change it.
    case whole
    /// A member of a struct node, or a child node reached through it. Changes
    /// when the node's own contents change, not when a child node is merely
    /// written through (``_WriteKind/passThrough``).
    case member
    /// One element of a collection node, by key (an index for lists).
    case element(AnyHashable)
    /// One stored field of a struct node (``Versioned``), by its storage
    /// range. Changes when a write to an overlapping range changes it, or
    /// when the node's contents change as a whole.
    case field(_FieldRange)
}

/// The bytes a stored property occupies within its struct: what tells two
/// fields of a ``Versioned`` node apart.
///
/// NB: ranges rather than key paths: a key path reaching two levels deep
/// (`\.pair.tag`) overlaps the field it lies in (`\.pair`), and comparing
/// ranges captures that without knowing the struct's layout. Computed
/// properties have no range (`MemoryLayout.offset(of:)` is `nil`); they are
/// tracked coarsely, as ``_ReadKind/member`` and ``_WriteKind/content``.
@usableFromInline
internal struct _FieldRange: Hashable, Sendable, CustomStringConvertible {
    @usableFromInline let offset: Int
    @usableFromInline let size: Int

    /// A range of `size` bytes (at least one, so that zero-sized fields
    /// still compare by position) at `offset`.
    @inlinable
    init(offset: Int, size: Int) {
        self.offset = offset
        self.size = Swift.max(1, size)
    }

    /// The range of the stored property `keyPath` leads to, or `nil` when
    /// `keyPath` is not a chain of stored properties.
    @inlinable
    static func of<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> _FieldRange? {
        guard let offset = MemoryLayout<Root>.offset(of: keyPath) else { return nil }
        return _FieldRange(offset: offset, size: MemoryLayout<Value>.size)
    }

    @inlinable
    func overlaps(_ other: _FieldRange) -> Bool {
        offset < other.offset + other.size && other.offset < offset + size
    }

    @usableFromInline
    var description: String { "[\(offset)..<\(offset + size)]" }
}

/// What a write did to a versioned node.
@usableFromInline
internal enum _WriteKind: Hashable {
    /// The node's contents changed in a way no finer kind describes: every
    /// reader of the node is affected.
    case content
    /// Only a child node changed, in place, through journaled writes of its
    /// own: only ``_ReadKind/whole`` readers of this node are affected.
    case passThrough
    /// One element of a collection changed, or was inserted or removed under
    /// a stable key: readers of the whole node and of that element are
    /// affected.
    case element(AnyHashable)
    /// One stored field of a struct node changed (assigned, mutated in
    /// place, or a child node there replaced): readers of the whole node, of
    /// an overlapping field, and coarse ``_ReadKind/member`` readers are
    /// affected.
    case field(_FieldRange)
}

/// One dependency of a selector: a node and what was read from it.
@usableFromInline
internal struct _Dependency: Hashable {
    @usableFromInline let node: NodeID
    @usableFromInline let kind: _ReadKind
    @inlinable init(node: NodeID, kind: _ReadKind) { self.node = node; self.kind = kind }
}

/// Records what versioned nodes a selector reads, while installed for the
/// calling thread by ``_ReadRecorder/record(_:)``.
@usableFromInline
internal final class _ReadRecorder {
    @usableFromInline static let _current = _ThreadLocal<_ReadRecorder>()

    // NB: unchecked exclusivity: a recorder is used by the one thread it is
    // installed on.
    @exclusivity(unchecked) @usableFromInline var dependencies: [_Dependency] = []

    @inlinable init() {}

    /// Runs `body` with this recorder installed on the calling thread
    /// (nesting restores the outer recorder afterwards).
    @inlinable
    func record<R>(_ body: () throws -> R) rethrows -> R {
        let outer = Self._current.value
        Self._current.value = self
        defer { Self._current.value = outer }
        return try body()
    }

    /// Whether a recorder is installed on the calling thread.
    @inlinable @inline(__always)
    static var isRecording: Bool { _current.value != nil }

    @inlinable @inline(__always)
    static func read(_ node: NodeID, _ kind: _ReadKind) {
        if let recorder = _current.value {
            recorder.dependencies.append(_Dependency(node: node, kind: kind))
        }
    }
}

/// Journals the writes a store's drain makes to versioned nodes, while
/// installed for the draining thread by ``_WriteJournal/record(_:)``.
///
/// Besides the list of writes, the journal keeps, for each node written or
/// expected, the stamp the node had when the journal first saw it written and
/// the last stamp it saw written. A parent node uses the last stamp to prove
/// that a child it yielded for mutation came back as the same node, changed
/// only by writes the journal holds (a pass-through), rather than replaced;
/// ``_DrainChanges`` uses both to prove the same of the root
/// (``_DrainChanges/isChained``).
@usableFromInline
internal final class _WriteJournal {
    @usableFromInline static let _current = _ThreadLocal<_WriteJournal>()

    /// The first and last stamps the journal knows for one node.
    @usableFromInline
    internal struct _Stamps {
        /// The stamp the node was written *from* by its first journaled
        /// write, or `nil` when the chain was started by ``expect(_:at:)``.
        @usableFromInline var first: VersionStamp?
        /// The stamp of the node's last journaled write (or expectation).
        @usableFromInline var last: VersionStamp
        @inlinable init(first: VersionStamp?, last: VersionStamp) { self.first = first; self.last = last }
    }

    /// Every write in order, with its node.
    // NB: unchecked exclusivity: a journal is used by the one thread it is
    // installed on.
    @exclusivity(unchecked) @usableFromInline var writes: [(node: NodeID, kind: _WriteKind)] = []
    /// The stamps journaled for each node written or expected.
    @exclusivity(unchecked) @usableFromInline var stamps: [NodeID: _Stamps] = [:]

    @inlinable init() {}

    @inlinable
    func record<R>(_ body: () throws -> R) rethrows -> R {
        let outer = Self._current.value
        Self._current.value = self
        defer { Self._current.value = outer }
        return try body()
    }

    @inlinable
    func reset() {
        writes.removeAll(keepingCapacity: true)
        stamps.removeAll(keepingCapacity: true)
    }

    /// The latest stamp journaled for each node: `journal.lastStamp[node]`.
    @inlinable
    var lastStamp: _LastStamps { _LastStamps(stamps: stamps) }

    /// A read-only view of the latest stamp journaled per node.
    @usableFromInline
    internal struct _LastStamps {
        @usableFromInline let stamps: [NodeID: _Stamps]
        @inlinable init(stamps: [NodeID: _Stamps]) { self.stamps = stamps }
        @inlinable subscript(node: NodeID) -> VersionStamp? { stamps[node]?.last }
    }

    /// Journals a write of `node` from stamp `old` to stamp `new`. A write
    /// whose `old` stamp is not the last one journaled for the node means the
    /// node was replaced behind the journal's back: it is journaled as
    /// ``_WriteKind/content``.
    ///
    /// - Complexity: O(1) amortized: one dictionary update, one append.
    @inlinable @inline(__always)
    static func write(_ node: NodeID, from old: VersionStamp, to new: VersionStamp, _ kind: _WriteKind) {
        guard let journal = _current.value else { return }
        journal._write(node, from: old, to: new, kind)
    }

    @usableFromInline
    func _write(_ node: NodeID, from old: VersionStamp, to new: VersionStamp, _ kind: _WriteKind) {
        var kind = kind
        if let known = stamps[node] {
            if known.last != old { kind = .content }
            stamps[node]!.last = new
        } else {
            stamps[node] = _Stamps(first: old, last: new)
        }
        writes.append((node, kind))
    }

    /// Notes that a parent is about to yield the child `node`, at stamp
    /// `stamp`, for mutation. Returns whether a journal is installed.
    @inlinable @inline(__always)
    static func expect(_ node: NodeID, at stamp: VersionStamp) -> Bool {
        guard let journal = _current.value else { return false }
        if journal.stamps[node] != nil {
            journal.stamps[node]!.last = stamp
        } else {
            journal.stamps[node] = _Stamps(first: nil, last: stamp)
        }
        return true
    }

    /// After a yield that `expect` announced: whether the child came back as
    /// node `node` at the stamp of its last journaled write, i.e. changed
    /// only through journaled writes.
    @inlinable
    static func isPassThrough(_ node: NodeID, before: NodeID, at stamp: VersionStamp) -> Bool {
        guard node == before, let journal = _current.value else { return false }
        return journal.stamps[node]?.last == stamp
    }

    /// Whether the journal proves that the node `root`, seen at stamp `old`
    /// before the writes, reached stamp `new` only through journaled writes
    /// (or did not change).
    ///
    /// NB: a link of the chain that was broken (a write from a stamp other
    /// than the last one journaled) is itself journaled as
    /// ``_WriteKind/content``, which affects every reader of the node; so a
    /// chain that starts at `old` and ends at `new` is enough.
    @inlinable
    func chains(_ root: NodeID, from old: VersionStamp, to new: VersionStamp) -> Bool {
        if old == new { return true }
        guard let known = stamps[root] else { return false }
        return known.first == old && known.last == new
    }
}
