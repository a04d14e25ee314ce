// Reducing a batch: the reducer on the working copy, through the
// middleware chain when there is one, and the state middleware sees.

extension Store {
    @inlinable
    func _reduceBatch(hasFirst: Bool, reduceFirst: () -> Void, copyFirst: () -> Action) {
        // NB: between actions, the recycler lets go of the older nodes a
        // reducer's copies replaced and nothing holds any more (see
        // `_NodeRecycler.releaseDead()`); the last action's go at the
        // batch's `settle()`.
        if _middleware.isEmpty {
            let count = _owned.pointee.batch.count
            if hasFirst {
                reduceFirst()
                if count != 0 { _recycler.releaseDead() }
            }
            for k in 0 ..< count {
                _reduce(_owned.pointee.batch[k])
                if k != count &- 1 { _recycler.releaseDead() }
            }
        } else {
            let context = MiddlewareContext(store: self)
            if hasFirst { _runChain(0, copyFirst(), context) }
            for action in _owned.pointee.batch { _runChain(0, action, context) }
        }
    }

    /// Runs the reducer on the working copy: the one `inout` access to it
    /// (an owned store's state cannot be read meanwhile: see `reducing`).
    @inlinable @inline(__always)
    func _reduce(_ action: Action) {
        _owned.pointee.reducing = true
        _reducer(&_owned.pointee.working, action)
        _owned.pointee.reducing = false
    }

    @inlinable
    func _runChain(_ index: Int, _ action: Action, _ context: MiddlewareContext<State, Action>) {
        if index == _middleware.count {
            _reduce(action)
            _recycler.releaseDead()
        } else {
            _middleware[index].body(context, action) { next in
                self._runChain(index + 1, next, context)
            }
        }
    }

    /// The state middleware sees: the working state inside this store's drain,
    /// the published state elsewhere, including inside another store's drain
    /// nested in this one's (its reducer, middleware or subscribers are not
    /// this store's: they see what `state` returns).
    // NB: innermost only: a drain nested in this one's may have been started
    // by this store's reducer, whose `inout` access to the working state is
    // in progress; reading it there would overlap that access.
    @usableFromInline
    var _middlewareState: State {
        _TrackingContext.ifPresent?.drainingStore == ObjectIdentifier(self) ? _owned.pointee.working : state
    }
}
