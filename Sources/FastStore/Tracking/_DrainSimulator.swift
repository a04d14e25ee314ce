/// Runs mutations of a state exactly as a ``Store`` drain does — under a
/// write journal, its changes logged for consumers — so that tests and
/// benchmarks can feed a ``StateConsumer`` the journaled way without a store.
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

    /// Applies `mutate` to `state` with a write journal installed, logs the
    /// drain's changes as a store does, then calls `notify` with the new
    /// state.
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
        if let rootReader, let oldRoot {
            _ChangeLog.shared.publish(_DrainChanges(journal: journal, oldRoot: oldRoot, newRoot: rootReader(state)))
        }
        try notify(state)
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
        if let rootReader, let oldRoot {
            _ChangeLog.shared.publish(_DrainChanges(journal: journal, oldRoot: oldRoot, newRoot: rootReader(state)))
        }
        try notify(state)
    }
}
