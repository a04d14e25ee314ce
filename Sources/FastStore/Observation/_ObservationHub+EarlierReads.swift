import Observation

// The earlier-read rule (docs/observation.md, "Races"): each thread's
// latest `state` read of each store, and the check that tells a tracking
// again when one of them was outdated by a publish.

extension _ObservationHub {
    /// Whether the tracking now reading on `thread` (which holds `look` at
    /// `epoch`, its current look) must be told again because one of the
    /// thread's earlier `state` reads was outdated by a publish: the
    /// tracking may still read values of that earlier state, which are
    /// filed under the current look and checked against the current look's
    /// own read, so a publish between the two reads that changed them would
    /// go untold.
    ///
    /// Only an earlier read whose look is still live and held by some
    /// tracking counts: a look a publish told was retired, and the tracking
    /// holding it was told (or is told again, in flight); a look nobody
    /// holds was read by no tracking. A held look may be the current
    /// tracking's, or another tracking's (the last view evaluated on the
    /// thread before the publish): the thread cannot tell them apart, so
    /// the current tracking is told, once per publish and earlier read, at
    /// worst once more than it needed (counted in the store's
    /// `earlierReadRenotifications`). Each outdated read is moved on to the
    /// generation seen, and the reads no tracking holds are dropped.
    ///
    /// - Complexity: O(the thread's state reads: at most
    ///   ``_ObservedThread/_stateReadLimit``, or more when trackings hold
    ///   reads of more stores): an atomic load each; the lock only when one
    ///   is outdated.
    func _checkEarlierReads(_ thread: _ObservedThread, current look: _Look, epoch: UInt64) -> Bool {
        var outdated = false
        for read in thread.stateReads where read.publication.generation.load(ordering: .sequentiallyConsistent) != read.generation {
            outdated = true
            break
        }
        guard outdated else { return false }
        var retell = false
        lock.lock()
        var k = 0
        while k < thread.stateReads.count {
            let read = thread.stateReads[k]
            let now = read.publication.generation.load(ordering: .sequentiallyConsistent)
            if read.look === look && read.epoch == epoch {
                // NB: the current look's own read: the late-read check of
                // the caller covers it.
                k += 1
                continue
            }
            let held = read.look.epoch == read.epoch && read.look.isLive
                && !isKnownUniquelyReferenced(&read.look.keyPath)
            guard held else {
                thread.stateReads.remove(at: k)
                continue
            }
            if now != read.generation {
                thread.stateReads[k].generation = now
                read.publication.earlierReadRenotifications.wrappingIncrement(ordering: .relaxed)
                retell = true
            }
            k += 1
        }
        lock.unlock()
        return retell
    }

    /// Notes a `state` read of `publication`'s store as the thread's latest
    /// of that store. With reads of ``_ObservedThread/_stateReadLimit``
    /// stores kept, those no tracking holds go; a held one is never dropped
    /// (a tracking may still read values of it), so a tracking that holds
    /// reads of more stores keeps them all, at O(those stores) per read.
    func _recordStateRead(
        _ thread: _ObservedThread, _ publication: _Publication, _ generation: UInt64, _ look: _Look, _ epoch: UInt64
    ) {
        if let k = thread.stateReads.firstIndex(where: { $0.publication === publication }) {
            thread.stateReads.remove(at: k)
        } else if thread.stateReads.count >= _ObservedThread._stateReadLimit {
            lock.lock()
            thread.stateReads.removeAll { read in
                !(read.look.epoch == read.epoch && read.look.isLive && !isKnownUniquelyReferenced(&read.look.keyPath))
            }
            lock.unlock()
        }
        thread.stateReads.append(.init(publication: publication, generation: generation, look: look, epoch: epoch))
    }
}
