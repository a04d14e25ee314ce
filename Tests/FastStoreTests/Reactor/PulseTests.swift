import FastStore
import Testing

/// ReactorKit's `@Pulse` example, as a reactor of this library.
private final class AlertReactor: Reactor {
    enum Action: Sendable { case alert(String), doSomeAction }
    enum Mutation: Sendable { case setAlertMessage(String), doSomething }
    struct State: Sendable {
        @Pulse var alertMessage: String?
        var somethingDone = 0
    }

    let initialState = State()
    let runtime = ReactorRuntime()
    /// Whether `mutate` emits over time (a task) instead of at once.
    let emitsLater: Bool
    /// Whether `transform(state:)` changes the state stream (a pipe).
    let transformsStates: Bool

    init(emitsLater: Bool = false, transformsStates: Bool = false) {
        self.emitsLater = emitsLater
        self.transformsStates = transformsStates
    }

    func mutate(action: Action) -> ReactorStream<Mutation> {
        let mutation: Mutation = switch action {
        case .alert(let message): .setAlertMessage(message)
        case .doSomeAction: .doSomething
        }
        guard emitsLater else { return .just(mutation) }
        return ReactorStream { emit in
            await Task.yield()
            emit(mutation)
        }
    }

    func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        switch mutation {
        case .setAlertMessage(let message): state.alertMessage = message
        case .doSomething: state.somethingDone += 1
        }
        return state
    }

    func transform(state: ReactorStream<State>) -> ReactorStream<State> {
        transformsStates ? state.map { $0 } : state
    }
}

@MainActor
@Suite struct PulseTests {
    /// The sequence: called on every assignment, even of an equal
    /// value, and not when another property changes.
    @Test(arguments: [(false, false), (true, false), (false, true), (true, true)])
    func pulseObserversSeeEveryAssignmentAndNothingElse(emitsLater: Bool, transformsStates: Bool) async {
        let reactor = AlertReactor(emitsLater: emitsLater, transformsStates: transformsStates)
        var shown: [String] = []
        let subscription = reactor.pulse(\.$alertMessage) { message in
            if let message { shown.append(message) }
        }
        let steps: [(AlertReactor.Action, [String])] = [
            (.alert("Hello"), ["Hello"]),                                  // called
            (.alert("Hello"), ["Hello", "Hello"]),                         // called again
            (.doSomeAction, ["Hello", "Hello"]),                           // not called
            (.alert("Hello"), ["Hello", "Hello", "Hello"]),                // called
            (.alert("tokijh"), ["Hello", "Hello", "Hello", "tokijh"]),     // called
            (.doSomeAction, ["Hello", "Hello", "Hello", "tokijh"]),        // not called
        ]
        for (action, expected) in steps {
            reactor.send(action)
            await reactor.flush()
            #expect(shown == expected, "after \(action)")
        }
        #expect(reactor.currentState.somethingDone == 2)
        withExtendedLifetime(subscription) {}
    }

    @Test func aPulseIsNotDeliveredOnSubscribingAndCountsAssignments() async {
        let reactor = AlertReactor()
        reactor.send(.alert("before"))
        var shown: [String?] = []
        let subscription = reactor.pulse(\.$alertMessage) { shown.append($0) }
        #expect(shown.isEmpty)
        reactor.send(.alert("after"))
        #expect(shown == ["after"])
        #expect(reactor.currentState.$alertMessage.valueUpdatedCount == 2)
        subscription.cancel()
        reactor.send(.alert("cancelled"))
        #expect(shown == ["after"])
    }

    @Test func pulsesAsAStream() async {
        let reactor = AlertReactor(emitsLater: true)
        let messages = reactor.pulse(\.$alertMessage)
        reactor.send(.alert("a"))
        reactor.send(.doSomeAction)
        reactor.send(.alert("a"))
        var iterator = messages.makeAsyncIterator()
        let first = await iterator.next()
        let second = await iterator.next()
        #expect(first == "a")
        #expect(second == "a")
    }

    @Test func pulseAssignmentsMakeUnequalStates() {
        var one = Pulse(wrappedValue: "x")
        let two = one
        #expect(one == two)
        one.wrappedValue = "x"
        #expect(one != two)
        #expect(one.value == two.value)
    }
}
