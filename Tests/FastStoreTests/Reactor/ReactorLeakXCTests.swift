import FastStore
import XCTest

private final class LeakReactor: Reactor {
    typealias Action = Int
    struct State: Sendable { var count = 0 }

    let initialState = State()
    let runtime = ReactorRuntime()

    func reduce(state: State, mutation: Int) -> State { State(count: state.count + mutation) }
}

/// A cancelled (or released) reactor subscription must let go of its
/// closure: an observer that uses the reactor (as `bind(reactor:)` code
/// does) must not keep the reactor alive once its subscription is gone.
final class ReactorLeakXCTests: XCTestCase {
    @MainActor func testACancelledObserverDoesNotKeepItsReactorAlive() async {
        weak var weakReactor: LeakReactor?
        do {
            let reactor = LeakReactor()
            weakReactor = reactor
            let subscription = reactor.observe { state in
                if state.count == 1 { reactor.send(1) }     // the closure uses the reactor
            }
            reactor.send(1)
            subscription.cancel()
        }
        XCTAssertNil(weakReactor, "the cancelled observer's closure still holds the reactor")
    }

    @MainActor func testAReleasedBagDoesNotKeepItsReactorAlive() async {
        weak var weakReactor: LeakReactor?
        do {
            let reactor = LeakReactor()
            weakReactor = reactor
            let bag = SubscriptionBag()
            reactor.observe(\.count) { _ in _ = reactor.currentState }.store(in: bag)
        }
        XCTAssertNil(weakReactor, "the bag's cancelled observers still hold the reactor")
    }
}
