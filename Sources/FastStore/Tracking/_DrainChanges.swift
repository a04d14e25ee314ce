/// The root identity and version of a state whose type is a
/// ``VersionedValue``.
@usableFromInline
internal struct _RootVersion: Hashable, Sendable {
    @usableFromInline let node: NodeID
    @usableFromInline let version: VersionStamp
    @inlinable init(node: NodeID, version: VersionStamp) { self.node = node; self.version = version }

    /// A function reading the root version of a `State`, or `nil` when
    /// `State` is not a ``VersionedValue``. Resolve it once per store or
    /// consumer, not per call: it opens the metatype existential.
    @inlinable
    static func reader<State>(for type: State.Type) -> ((State) -> _RootVersion)? {
        guard let versioned = type as? any VersionedValue.Type else { return nil }
        func make<V: VersionedValue>(_: V.Type) -> (State) -> _RootVersion {
            // NB: `State == V` here; the bit cast spares a dynamic cast per call.
            { state in
                let value = unsafeBitCast(state, to: V.self)
                return _RootVersion(node: value.nodeID, version: value.version)
            }
        }
        return make(versioned)
    }
}

/// What one drain of a ``Store`` changed: its journaled writes and the root
/// versions of the state before and after, when the state is versioned.
///
/// Installed for the notifying thread while the store calls its subscribers,
/// so that a ``StateConsumer`` fed from a subscriber (the ReSwiftConsumer
/// pattern `consumer.consume(newState: state)`) can use it instead of
/// re-running every selector.
///
/// The writes describe the step from `oldRoot` to `newRoot` only when
/// ``isChained`` is true: the root kept its identity and every change of its
/// stamp went through the journal. A reducer that assigns a whole new state
/// (`state = other`) breaks the chain; consumers then evaluate every selector.
@usableFromInline
internal final class _DrainChanges: @unchecked Sendable {
    @usableFromInline static let _current = _ThreadLocal<_DrainChanges>()

    @usableFromInline let writes: [(node: NodeID, kind: _WriteKind)]
    @usableFromInline let oldRoot: _RootVersion?
    @usableFromInline let newRoot: _RootVersion?
    /// Whether `writes` account for every change from `oldRoot` to
    /// `newRoot` (see the type's documentation).
    @usableFromInline let isChained: Bool

    /// The changes of a drain whose writes `journal` recorded, the state's
    /// root being at `oldRoot` before the drain and at `newRoot` after.
    ///
    /// - Complexity: O(1); the writes array is shared, not copied.
    @inlinable
    init(journal: _WriteJournal, oldRoot: _RootVersion?, newRoot: _RootVersion?) {
        self.writes = journal.writes
        self.oldRoot = oldRoot
        self.newRoot = newRoot
        if let oldRoot, let newRoot, oldRoot.node == newRoot.node {
            self.isChained = journal.chains(newRoot.node, from: oldRoot.version, to: newRoot.version)
        } else {
            self.isChained = false
        }
    }

    @inlinable
    init(writes: [(node: NodeID, kind: _WriteKind)], oldRoot: _RootVersion?, newRoot: _RootVersion?, isChained: Bool) {
        self.writes = writes
        self.oldRoot = oldRoot
        self.newRoot = newRoot
        self.isChained = isChained
    }

    /// The changes of consecutive drains as one: the union of their writes,
    /// from the first one's old root to the last one's new root. Valid for
    /// finding affected readers, which is a union over writes; chained when
    /// every span is chained and each starts where the previous one ended.
    ///
    /// - Precondition: `spans` is not empty.
    @usableFromInline
    static func merging(_ spans: [_DrainChanges]) -> _DrainChanges {
        precondition(!spans.isEmpty, "FastStore: internal error: merging no drain changes")
        if spans.count == 1 { return spans[0] }
        var isChained = spans[0].isChained
        for (previous, next) in zip(spans, spans.dropFirst()) where !next.isChained || next.oldRoot != previous.newRoot {
            isChained = false
        }
        return _DrainChanges(
            writes: spans.flatMap(\.writes),
            oldRoot: spans.first!.oldRoot,
            newRoot: spans.last!.newRoot,
            isChained: isChained
        )
    }

    /// The changes installed for the calling thread, if it is notifying.
    @inlinable static var current: _DrainChanges? { _current.value }

    @inlinable
    func installed<R>(_ body: () throws -> R) rethrows -> R {
        let outer = Self._current.value
        Self._current.value = self
        defer { Self._current.value = outer }
        return try body()
    }
}
