import FastStore
import Testing

/// API misuse ends in a precondition failure that names the problem, never a
/// deadlock. Checked as exit tests (the process must stop, and with failure).
@Suite struct StoreMisuseTests {
    @Test func waitUntilIdleFromInsideTheDrainStopsInsteadOfDeadlocking() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let ref = StoreRef<Int, Int>()
            let store = Store<Int, Int>(state: 0) { state, action in
                state += action
                ref.store?.waitUntilIdle()  // from the reducer: would wait for itself
            }
            ref.store = store
            store.dispatch(1)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("waitUntilIdle() called from inside the store's own drain"), "got: \(message)")
    }

    @Test func waitUntilIdleFromASubscriberStopsInsteadOfDeadlocking() async {
        await #expect(processExitsWith: .failure) {
            let store = Store<Int, Int>(state: 0) { $0 += $1 }
            let token = store.subscribe { _ in store.waitUntilIdle() }
            store.dispatch(1)
            token.cancel()
        }
    }

    @Test func middlewareContextStateAfterTheStoreIsGoneStops() async {
        await #expect(processExitsWith: .failure) {
            let kept = StoreRef<Int, Int>()
            var saved: MiddlewareContext<Int, Int>?
            do {
                let keep = Middleware<Int, Int> { context, action, next in
                    saved = context
                    next(action)
                }
                let store = Store<Int, Int>(state: 0, reducer: { $0 += $1 }, middleware: [keep])
                kept.store = store
                store.dispatch(1)
            }
            _ = saved!.state
        }
    }
}
