import Atomics

/// What a reactor does, on the main actor: the stages action → mutations →
/// state → publication, the pipes through the transform hooks, the
/// observers, stub mode and `flush()`'s bookkeeping.
///
/// Work is handled one item at a time from a queue (`_handle`): an action
/// sent, or a mutation or a state coming out of a transform hook's stream,
/// enters the queue; whatever it produces synchronously (the mutations of a
/// stream known now, the state they reduce to, its publication) is
/// appended behind it. So states are reduced and published in order, and
/// an action sent by an observer waits until every observer has seen the
/// current state.
@MainActor
final class _ReactorEngine<R: Reactor> {
    enum _Work {
        case action(R.Action)
        case mutation(R.Mutation)
        case state(R.State)
    }

    weak var reactor: R?
    /// The last published state.
    var currentState: R.State
    /// The last reduced state (`transform(state:)`'s input).
    var reducedState: R.State
    var isStubEnabled = false
    var stubActions: [R.Action] = []
    var observers: [_ReactorObserver<R.State>] = []

    /// Pipes into the transform hooks that change their stream; `nil` for
    /// a hook that returned its input (the stage is then a plain call).
    var actionPipe: _ReactorChannel<R.Action>?
    var mutationPipe: _ReactorChannel<R.Mutation>?
    var statePipe: _ReactorChannel<R.State>?

    var queue: [_Work] = []
    var queueHead = 0
    var isHandling = false
    /// Mutation streams being iterated.
    var runningStreams = 0
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// The tasks and streams to end when the reactor goes.
    let lifetime = _ReactorLifetime()

    init(reactor: R) {
        self.reactor = reactor
        currentState = reactor.initialState
        reducedState = currentState
    }

    /// Passes the pipes through the reactor's transform hooks. Called once
    /// the engine is the reactor's, so a hook may use the reactor.
    func start() {
        guard let reactor else { return }
        actionPipe = _pipe(reactor.transform(action:)) { engine, action in engine._enqueue(.action(action)) }
        mutationPipe = _pipe(reactor.transform(mutation:)) { engine, mutation in engine._enqueue(.mutation(mutation)) }
        statePipe = _pipe(reactor.transform(state:)) { engine, state in engine._enqueue(.state(state)) }
    }

    /// Passes a pipe through `transform`; when it comes back changed,
    /// starts the task that feeds the transformed stream's elements to
    /// `handle`, and returns the pipe. Returns `nil` when `transform`
    /// returned the pipe itself.
    private func _pipe<Element: Sendable>(
        _ transform: (ReactorStream<Element>) -> ReactorStream<Element>,
        _ handle: @escaping @MainActor (_ReactorEngine, Element) -> Void
    ) -> _ReactorChannel<Element>? {
        let channel = _ReactorChannel<Element> { [weak self] in
            Task { @MainActor in self?._resumeIdleWaiters() }
        }
        let input = ReactorStream<Element>(_source: .channel(channel))
        let output = transform(input)
        if output._isSamePipe(as: input) { return nil }
        let task = Task { @MainActor [weak self] in
            for await element in output {
                guard let self else { return }
                handle(self, element)
            }
            // NB: the hook's stream ended: nothing reads the pipe any more,
            // so it drops what it gets and does not hold `flush()` back.
            channel.finish()
            self?._resumeIdleWaiters()
        }
        lifetime.add(lifetime.nextID()) { channel.finish(); task.cancel() }
        return channel
    }

    // MARK: Stages

    /// An action sent by the view.
    func send(_ action: R.Action) {
        if isStubEnabled {
            stubActions.append(action)
        } else if let actionPipe {
            actionPipe.send(action)
        } else {
            _enqueue(.action(action))
        }
    }

    func _enqueue(_ work: _Work) {
        queue.append(work)
        guard !isHandling else { return }
        isHandling = true
        while queueHead < queue.count {
            let next = queue[queueHead]
            queueHead += 1
            _handle(next)
        }
        queue.removeAll(keepingCapacity: true)
        queueHead = 0
        isHandling = false
        _resumeIdleWaiters()
    }

    private func _handle(_ work: _Work) {
        switch work {
        case .action(let action):
            guard let reactor, !isStubEnabled else { return }
            _run(reactor.mutate(action: action))
        case .mutation(let mutation):
            guard let reactor, !isStubEnabled else { return }
            reducedState = reactor.reduce(state: reducedState, mutation: mutation)
            if let statePipe { statePipe.send(reducedState) } else { _publish(reducedState) }
        case .state(let state):
            _publish(state)
        }
    }

    /// Takes the mutations of one action: at once when they are known now,
    /// else as its stream emits them.
    private func _run(_ mutations: ReactorStream<R.Mutation>) {
        if case .elements(let elements) = mutations._source {
            for mutation in elements { _mutated(mutation) }
            return
        }
        runningStreams += 1
        let id = lifetime.nextID()
        let task = Task { @MainActor [weak self] in
            for await mutation in mutations {
                guard let self else { return }
                self._mutated(mutation)
            }
            self?._streamEnded(id)
        }
        lifetime.add(id) { task.cancel() }
    }

    private func _mutated(_ mutation: R.Mutation) {
        if let mutationPipe { mutationPipe.send(mutation) } else { _enqueue(.mutation(mutation)) }
    }

    private func _streamEnded(_ id: Int) {
        lifetime.remove(id)
        runningStreams -= 1
        _resumeIdleWaiters()
    }

    /// Makes `state` the current state and tells the observers, in the
    /// order they were added.
    func _publish(_ state: R.State) {
        currentState = state
        var sawCancelled = false
        for observer in observers {
            if observer.isCancelled { sawCancelled = true } else { observer.receive(state) }
        }
        if sawCancelled { observers.removeAll { $0.isCancelled } }
    }

    /// Sets the state directly (stub mode): published as is, without
    /// `reduce` or `transform(state:)`.
    func setStubState(_ state: R.State) {
        reducedState = state
        _enqueue(.state(state))
    }

    // MARK: Observers

    func addObserver(_ receive: @escaping (R.State) -> Void) -> StoreSubscription {
        let observer = _ReactorObserver(receive: receive)
        observers.append(observer)
        return StoreSubscription { observer.cancel() }
    }

    /// A hot stream fed by the observer `register` adds; the observer is
    /// cancelled when the iteration stops, and the stream finished when the
    /// reactor goes.
    func makeStream<Element: Sendable>(
        _ register: (AsyncStream<Element>.Continuation) -> StoreSubscription
    ) -> ReactorStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream()
        let subscription = register(continuation)
        let id = lifetime.nextID()
        lifetime.add(id) { continuation.finish() }
        continuation.onTermination = { [weak lifetime] _ in
            subscription.cancel()
            lifetime?.remove(id)
        }
        return ReactorStream(_source: .hot(stream))
    }

    // MARK: Flush

    /// Whether nothing sent is still being handled: no queued work, no
    /// mutation stream running, every pipe drained.
    var isIdle: Bool {
        !isHandling && runningStreams == 0
            && (actionPipe?.isDrained ?? true) && (mutationPipe?.isDrained ?? true) && (statePipe?.isDrained ?? true)
    }

    func flush() async {
        if isIdle { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    func _resumeIdleWaiters() {
        guard !idleWaiters.isEmpty, isIdle else { return }
        let waiters = idleWaiters
        idleWaiters = []
        for waiter in waiters { waiter.resume() }
    }
}

/// One observer of a reactor's states.
///
/// Cancelling drops the closure at once: the engine removes a cancelled
/// observer only at its next publication, and until then the closure
/// (which may capture the reactor, or a view whose bag holds it) must not
/// keep anything alive.
///
/// NB: `@unchecked Sendable`: `cancelled` is atomic; `_receive` is guarded
/// by `lock` (cancelled from any thread, called only on the main actor).
final class _ReactorObserver<State>: @unchecked Sendable {
    private let cancelled = ManagedAtomic<Bool>(false)
    private let lock = _Lock()
    private var _receive: ((State) -> Void)?

    init(receive: @escaping (State) -> Void) { _receive = receive }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Calls the closure, unless cancelled (outside the lock: it may
    /// cancel this observer or send an action).
    func receive(_ state: State) {
        guard let receive = lock.withLock({ _receive }) else { return }
        receive(state)
    }

    func cancel() {
        cancelled.store(true, ordering: .releasing)
        let dropped = lock.withLock {
            let receive = _receive
            _receive = nil
            return receive
        }
        // NB: released here, outside the lock (its captures' deinits may
        // cancel other observers).
        withExtendedLifetime(dropped) {}
    }
}

/// What a reactor's engine must end when it goes: the pipes' tasks and
/// mutation streams. Ended when the engine (held by the reactor's runtime)
/// is released.
///
/// NB: `@unchecked Sendable`: the fields are guarded by `lock`.
final class _ReactorLifetime: @unchecked Sendable {
    private let lock = _Lock()
    private var endings: [Int: @Sendable () -> Void] = [:]
    private var lastID = 0

    /// A fresh id for ``add(_:_:)``.
    func nextID() -> Int {
        lock.withLock {
            lastID += 1
            return lastID
        }
    }

    /// Runs `ending` when the lifetime ends, unless removed before.
    func add(_ id: Int, _ ending: @escaping @Sendable () -> Void) {
        lock.withLock { endings[id] = ending }
    }

    /// Forgets the ending of `id` (what it ends has ended).
    func remove(_ id: Int) {
        _ = lock.withLock { endings.removeValue(forKey: id) }
    }

    deinit {
        for ending in endings.values { ending() }
    }
}
