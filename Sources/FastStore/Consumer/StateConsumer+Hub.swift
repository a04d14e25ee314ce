// A consumer's side of the store's wake-up hub (see `_WakeUpHub`): its
// consumes from a hub, whether it is anchored, and what it tells its hubs.

extension StateConsumer {
    /// A consume from the wake-up hub `hub`: `state`, with the drains from
    /// the hub's previous root (`from`) when they account for the step
    /// (`proof`).
    ///
    /// - Parameter matched: Whether the hub found a write of `proof`
    ///   affecting a read it mirrors for this consumer.
    /// - Returns: Whether, once this thread gave up the consuming turn, the
    ///   consumer was anchored at `state`'s root (see `_WakeUpHub`); `false`
    ///   when the consume was queued behind another thread's.
    @inlinable
    internal func _consumeFromHub(
        _ state: State, hub: ObjectIdentifier, from oldRoot: _RootVersion?, proof: _HubProof?, matched: Bool
    ) -> Bool {
        _lock.lock()
        let mustConsume = _guarded.turn.arrive(.state(state))
        _lock.unlock()
        guard mustConsume else { return false }
        _turn.tag = 0
        _consumeOne(state, hub: hub, proofFrom: oldRoot, proof: proof, hubMatched: matched)
        let root = _rootReader?(state)
        while true {
            _lock.lock()
            guard let next = _guarded.turn.next() else {
                // NB: the turn was given up under this lock: nothing else
                // consumes while the anchor is read.
                let anchored = _isAnchored(at: hub, root: root)
                _lock.unlock()
                return anchored
            }
            _lock.unlock()
            _consumePending(next)
        }
    }

    /// Whether the consumer's last consume was `hub`'s delivery of `root`
    /// and no consume runs or waits. Must hold the lock.
    @inlinable
    internal func _isAnchored(at hub: ObjectIdentifier, root: _RootVersion?) -> Bool {
        guard let root, !_guarded.turn.isTaken else { return false }
        return _turn.lastRoot == root && _turn.hubAnchor == _HubAnchor(hub: hub, root: root)
    }

    /// Whether the hubs must tell this consumer of every publish: it has
    /// unconditional selectors, or keeps its last state. Must hold the lock.
    @usableFromInline
    internal var _needsEveryPublish: Bool {
        !_guarded.registry.unconditional.isEmpty || _guarded.consumeInstantly
    }

    /// Tells the hubs this consumer is connected through what changed in
    /// its registry (and, with `markUnsynced`, that it consumed a state
    /// they did not deliver: every hub but `except`). Holds no lock.
    @usableFromInline
    internal func _tellHubs(markUnsynced: Bool, except: ObjectIdentifier? = nil) {
        _lock.lock()
        let links = _guarded.hubLinks
        let notes = _guarded.registry.hubNotices.take()
        _lock.unlock()
        for link in links {
            guard let hub = link.hub else { continue }
            if markUnsynced, ObjectIdentifier(hub) != except { hub.markUnsynced(link.attachment) }
            hub.refresh(link.attachment, self, noted: notes.dependencies, everything: notes.everything)
        }
    }

    @usableFromInline
    internal func _tellHubsIfPending() {
        if _lock.withLock({ _guarded.registry.hubNotices.isPending }) { _tellHubs(markUnsynced: false) }
    }
}
