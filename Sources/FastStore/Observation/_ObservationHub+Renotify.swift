#if canImport(Dispatch)
import Dispatch
#endif
import Observation

// Telling Observation again, asynchronously: the reads a publish could not
// reach when it told its observers.

extension _ObservationHub {
    /// One key to tell again, how to know whether someone still waits for
    /// it, and the store whose pending re-notifications it counts in.
    enum _Renotification {
        /// A look, at the use `epoch` names: awaited while that use lasts
        /// and some tracking holds its key path.
        case look(id: Int, epoch: UInt64, publication: _Publication?)
        /// The key of a replaced plain state, kept in `replacedSnapshots`
        /// under `token`: the very instance its trackings hold, so it is
        /// still awaited while anyone else holds it.
        case snapshot(token: Int, publication: _Publication)

        var publication: _Publication? {
            switch self {
            case .look(_, _, let publication): publication
            case .snapshot(_, let publication): publication
            }
        }
    }

    /// The re-notification attempts, a millisecond apart at first and
    /// doubling (8 s in all; 4 s on the main queue): a tracking whose
    /// thread is descheduled between its read and the end of its closure
    /// (a loaded machine, a sanitizer) is still told. Attempts stop as soon as nobody but the hub holds the
    /// key: the tracking was told (it lets its key go) or there was none.
    static let renotificationAttempts = 13

    /// Tells Observation again, asynchronously, about `items`.
    ///
    /// Three reads need it. A *late* read: a publish came after the
    /// thread's `state` read, and the thread filed reads of the older state
    /// it got after the publish looked for looks, so the publish could not
    /// tell it. A read after an *outdated earlier read*: the thread read
    /// `state` (or another store's) earlier, a publish came since, and the
    /// tracking may hold values of that earlier state (see
    /// ``_checkEarlierReads(_:current:epoch:)``). An *in-flight* read: a
    /// publish told a look that is still held after the notification: held
    /// by a tracking that had not installed its observers yet (Observation
    /// installs them only when the tracked closure returns), as a told
    /// tracking lets its key paths go.
    ///
    /// NB: asynchronously, so that the tracking is installed by then: on the
    /// main queue when the read ran on the main thread (SwiftUI installs
    /// its tracking in the same turn of the main queue), else on a global
    /// queue a millisecond later; then again, up to
    /// ``renotificationAttempts`` times with doubling delays, while some
    /// tracking still holds the key. A tracking told twice is invalidated
    /// once more than it needed, at worst.
    func _renotify(_ items: [_Renotification], onMain: Bool, attempt: Int = 0) {
        guard !items.isEmpty else { return }
        if attempt == 0 {
            for item in items { item.publication?.pendingRenotifications.wrappingIncrement(ordering: .relaxed) }
        }
        let box = _UncheckedSendable((self, items))
        let notify: @Sendable () -> Void = {
            let (hub, items) = box.value
            hub._fire(items)
            var awaited: [_Renotification] = []
            var over: [_Renotification] = []
            hub.lock.lock()
            for item in items {
                if attempt + 1 < Self.renotificationAttempts && hub._isAwaited(item) {
                    awaited.append(item)
                } else {
                    if case .snapshot(let token, _) = item { hub.replacedSnapshots[token] = nil }
                    over.append(item)
                }
            }
            hub.lock.unlock()
            for item in over { item.publication?.pendingRenotifications.wrappingDecrement(ordering: .releasing) }
            hub._renotify(awaited, onMain: onMain, attempt: attempt + 1)
        }
        #if canImport(Dispatch)
        if onMain && attempt == 0 {
            DispatchQueue.main.async(execute: notify)
        } else {
            let delay = DispatchTime.now() + .milliseconds(1 << (onMain ? attempt - 1 : attempt))
            (onMain ? DispatchQueue.main : DispatchQueue.global()).asyncAfter(deadline: delay, execute: notify)
        }
        #else
        _fire(items)
        for item in items { item.publication?.pendingRenotifications.wrappingDecrement(ordering: .releasing) }
        #endif
    }

    /// Calls `willSet` and `didSet` for the keys of `items`.
    func _fire(_ items: [_Renotification]) {
        var looks: [(_Look, ObservationRegistrar, KeyPath<_Look, Int>)] = []
        var snapshots: [KeyPath<_ObservationHub, Int>] = []
        lock.lock()
        for item in items {
            switch item {
            case .look(let id, let epoch, _):
                let look = self.looks[id]
                if look.epoch == epoch { looks.append((look, look.registrar, look.keyPath)) }
            case .snapshot(let token, _):
                if let keyPath = replacedSnapshots[token] { snapshots.append(keyPath) }
            }
        }
        lock.unlock()
        for (look, registrar, keyPath) in looks { registrar.willSet(look, keyPath: keyPath) }
        for (look, registrar, keyPath) in looks { registrar.didSet(look, keyPath: keyPath) }
        for keyPath in snapshots { registrar.willSet(self, keyPath: keyPath) }
        for keyPath in snapshots { registrar.didSet(self, keyPath: keyPath) }
    }

    /// Whether someone may still wait for `item`. Must hold the lock.
    func _isAwaited(_ item: _Renotification) -> Bool {
        switch item {
        case .look(let id, let epoch, _):
            // NB: a tracking that accessed the look holds its key path until
            // it is told (then lets it go) or cancelled.
            guard looks[id].epoch == epoch else { return false }
            return !isKnownUniquelyReferenced(&looks[id].keyPath)
        case .snapshot(let token, _):
            guard replacedSnapshots[token] != nil else { return false }
            return !isKnownUniquelyReferenced(&replacedSnapshots[token]!)
        }
    }

    // MARK: Replaced plain states

    /// The key path every tracked read of a plain store's state at one
    /// generation registers: what the publish that replaces it fires.
    subscript(_snapshot key: _SnapshotKey) -> Int { 0 }

    /// Tells the trackings that read a replaced plain state, and again,
    /// asynchronously, those that still hold its key afterwards: see
    /// ``_renotify(_:onMain:)``.
    @usableFromInline
    func _notifyReplaced(_ snapshot: inout _Publication.Snapshot?, of publication: _Publication) {
        guard var replaced = snapshot else { return }
        snapshot = nil
        registrar.willSet(self, keyPath: replaced.keyPath)
        registrar.didSet(self, keyPath: replaced.keyPath)
        // NB: a told tracking let the key go; only this copy is left unless
        // one was not installed yet (or a read of that state has not
        // registered yet: it is told once more than it needed).
        guard !isKnownUniquelyReferenced(&replaced.keyPath) else { return }
        lock.lock()
        nextSnapshotToken += 1
        let token = nextSnapshotToken
        replacedSnapshots[token] = replaced.keyPath
        let (readOnMain, readElsewhere) = (replaced.readOnMain, replaced.readElsewhere)
        _ = consume replaced
        lock.unlock()
        if readElsewhere { _renotify([.snapshot(token: token, publication: publication)], onMain: false) }
        if readOnMain { _renotify([.snapshot(token: token, publication: publication)], onMain: true) }
    }
}
