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
    /// The changes go to the change log filed under `state`'s root (its
    /// store's, or a live ``_SimulatedDrains``'s), else to a new one, filed
    /// until this call returns: a drain nobody was told of is then
    /// forgotten, unless the drains go through one ``_SimulatedDrains``,
    /// which keeps its log filed while it lives.
    ///
    /// - Complexity: the cost of `mutate` plus O(1) per versioned write,
    ///   plus the cost of `notify`.
    public static func drain<State>(
        _ state: inout State,
        _ mutate: (inout State) throws -> Void,
        notify: (State) throws -> Void
    ) rethrows {
        try _SimulatedDrains<State>().drain(&state, mutate, notify: notify)
    }
}

/// A reusable simulated drain for benchmarks: resolves the root reader once
/// and reuses one journal, as a ``Store`` does.
@_spi(Testing)
public final class _SimulatedDrains<State> {
    @usableFromInline let rootReader: ((State) -> _RootVersion)?
    @usableFromInline let journal = _WriteJournal()
    /// The simulated store's change log, from its first drain on.
    @usableFromInline var log: _ChangeLog?
    /// Whether `log` was made here (and is unfiled here), rather than
    /// found filed under the state's root.
    @usableFromInline var ownsLog = false
    /// A drain the change log handed back, for the next one.
    @usableFromInline var spare: _DrainChanges?

    public init() {
        rootReader = _RootVersion.reader(for: State.self)
    }

    deinit { if ownsLog { log?.unfile() } }

    /// As ``_DrainSimulator/drain(_:_:notify:)``.
    @inlinable
    public func drain(_ state: inout State, _ mutate: (inout State) throws -> Void, notify: (State) throws -> Void) rethrows {
        // NB: the spare is taken into a local, so that `mutate` may use
        // this object (an `inout` access to a stored property lasts the
        // whole call).
        var reusable = spare
        spare = nil
        let oldRoot = rootReader?(state)
        if log == nil, let oldRoot {
            // NB: a state whose log is filed (its store's, or a live
            // simulated store's) continues that log.
            if let filed = _ChangeLogDirectory.shared.logs(under: oldRoot.node).first {
                log = filed
            } else {
                log = .forStore()
                ownsLog = true
            }
            // NB: a log with a watcher that reads it: the simulated drains
            // feed consumers through the log.
            log!._markWanted()
        }
        _ = try journal.recordStep(
            oldRoot: oldRoot, newRoot: { rootReader!(state) }, reusing: &reusable, log: log
        ) { try mutate(&state) }
        spare = reusable
        try notify(state)
    }
}
