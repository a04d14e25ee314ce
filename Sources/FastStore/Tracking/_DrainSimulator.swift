/// Runs mutations of a state exactly as a ``Store`` drain does — under a
/// write journal — and then notifies with the drain's changes installed, so
/// that tests and benchmarks can feed a ``StateConsumer`` the journaled way
/// without a store.
@_spi(Testing)
public enum _DrainSimulator {
    /// Whether FastStore was built with its internal invariant checks
    /// (`FASTSTORE_INTERNAL_CHECKS`, debug builds): benchmarks refuse to run
    /// with them on.
    public static var internalChecksEnabled: Bool {
        #if FASTSTORE_INTERNAL_CHECKS
        return true
        #else
        return false
        #endif
    }

    /// Applies `mutate` to `state` with a write journal installed, then calls
    /// `notify` with the new state while the drain's changes (the journaled
    /// writes, the root before and after) are installed for the thread.
    ///
    /// - Complexity: the cost of `mutate` plus O(1) per versioned write,
    ///   plus the cost of `notify`.
    public static func drain<State>(
        _ state: inout State,
        _ mutate: (inout State) throws -> Void,
        notify: (State) throws -> Void
    ) rethrows {
        let rootReader = _RootVersion.reader(for: State.self)
        let oldRoot = rootReader?(state)
        let journal = _WriteJournal()
        try journal.record { try mutate(&state) }
        let changes = _DrainChanges(journal: journal, oldRoot: oldRoot, newRoot: rootReader?(state))
        try changes.installed { try notify(state) }
    }

    /// Calls `notify` with `state` while drain changes that claim the given
    /// (possibly false) root step and writes are installed: for tests of
    /// how a consumer treats changes that do not match its last state.
    public static func notify<State>(
        _ state: State,
        claimingFrom oldState: State,
        _ notify: (State) throws -> Void
    ) rethrows {
        guard let rootReader = _RootVersion.reader(for: State.self) else { return try notify(state) }
        let changes = _DrainChanges(journal: _WriteJournal(), oldRoot: rootReader(oldState), newRoot: rootReader(state))
        try changes.installed { try notify(state) }
    }
}

/// A reusable simulated drain for benchmarks: resolves the root reader once
/// and reuses one journal, as a ``Store`` does.
@_spi(Testing)
public final class _SimulatedDrains<State> {
    @usableFromInline let rootReader: ((State) -> _RootVersion)?
    @usableFromInline let journal = _WriteJournal()

    public init() {
        rootReader = _RootVersion.reader(for: State.self)
    }

    /// As ``_DrainSimulator/drain(_:_:notify:)``.
    @inlinable
    public func drain(_ state: inout State, _ mutate: (inout State) throws -> Void, notify: (State) throws -> Void) rethrows {
        let oldRoot = rootReader?(state)
        journal.reset()
        try journal.record { try mutate(&state) }
        let changes = _DrainChanges(journal: journal, oldRoot: oldRoot, newRoot: rootReader?(state))
        try changes.installed { try notify(state) }
    }
}
