import FastStore

// ReSwiftConsumer's consumer types are FastStore's: a facade user gets the
// consumer that re-runs only what a dispatch changed, and keeps it when
// moving to `import FastStore`.

/// FastStore's ``FastStore/StateConsumer``: selectors plus `(old, new)`
/// callbacks, re-run only when what they read changed. ReSwiftConsumer's
/// API: `add`, `remove`, `removeAll`, `consumeInstantly`,
/// `consume(newState:)`, `consume(new:)`, `consume(old:new:)`,
/// `init(initialState:)`.
public typealias StateConsumer<State> = FastStore.StateConsumer<State>

/// FastStore's `FastStore.ConsumerBag`: consumers of one ``StateConsumer``,
/// removed together.
public typealias ConsumerBag<State> = FastStore.ConsumerBag<State>

/// What `StateConsumer.add` returns (ReSwiftConsumer's name).
public typealias TypedConsumer<State> = FastStore.ConsumerHandle<State>

/// ReSwiftConsumer's `Consumer`: something that consumes states.
public protocol Consumer {
    associatedtype State
    /// Consumes `new`, reporting the changes since `old`.
    func consume(old: State?, new: State?)
    /// Consumes `new`, reporting the changes since the last state consumed.
    func consume(new: State?)
}

extension FastStore.StateConsumer: Consumer {
    /// A consumer that starts from `initialState`: it is consumed at once
    /// (no consumer is registered yet, so nothing is called), so that the
    /// first consume after it is measured against it on versioned state.
    ///
    /// NB: ReSwiftConsumer compares a consumer added later against
    /// `initialState`; FastStore's consumers compare against what they saw
    /// themselves, so a consumer's first consume always reports its
    /// selection (with `old == nil`).
    public convenience init(initialState: State? = nil) {
        self.init()
        if let initialState {
            consume(newState: initialState)
        }
    }

    /// Consumes `new` (ReSwiftConsumer's spelling of `consume(newState:)`).
    /// A `nil` state is ignored: FastStore's consumers consume states, not
    /// their absence.
    ///
    /// - Complexity: as `consume(newState:)`.
    public func consume(new: State?) {
        if let new {
            consume(newState: new)
        }
    }

    /// Consumes `new`. Each consumer reports the change from the selection
    /// it saw last, so `old` is not needed and is not used: pass the state
    /// consumed before, as ReSwiftConsumer's callers do.
    ///
    /// - Complexity: as `consume(newState:)`.
    public func consume(old: State?, new: State?) {
        consume(new: new)
    }
}

extension FastStore.StateConsumer: Hashable {
    /// Consumers compare by identity (ReSwiftConsumer keeps them in sets).
    public static func == (lhs: FastStore.StateConsumer<State>, rhs: FastStore.StateConsumer<State>) -> Bool {
        lhs === rhs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
