import FastStore
@testable import FastStoreTesting
import Testing

@Suite struct TestStoreReceiveTests {
    @Test func receivesWhatMiddlewareDispatched() {
        let store = makeStore()
        store.send(.load) { $0.isLoading = true }
        store.receive(.loaded(42)) {
            $0.isLoading = false
            $0.count = 42
        }
        store.finish()
    }

    @Test func receivesByPredicate() {
        let store = makeStore()
        store.send(.load) { $0.isLoading = true }
        store.receive({ if case .loaded = $0 { true } else { false } }) {
            $0.isLoading = false
            $0.count = 42
        }
        store.finish()
    }

    @Test func waitsForAnActionFromATask() async {
        let store = makeStore()
        store.send(.loadLater) { $0.isLoading = true }
        await store.receive(.loaded(7), timeout: .seconds(60)) {
            $0.isLoading = false
            $0.count = 7
        }
        store.finish()
    }

    @Test @MainActor func waitsOnTheMainActor() async {
        let store = makeStore()
        store.send(.loadLater) { $0.isLoading = true }
        await store.receive({ $0 == .loaded(7) }, timeout: .seconds(60)) {
            $0.isLoading = false
            $0.count = 7
        }
        store.finish()
    }

    @Test func unreceivedActionAtFinish() {
        let store = makeStore()
        store.send(.load) { $0.isLoading = true }
        withKnownIssue {
            store.finish()
        } matching: { issue in
            let message = text(issue)
            return message.contains("Must handle 1 action received before the test finished")
                && message.contains("  • .loaded(42)")
        }
    }

    @Test func unreceivedActionAtDeinit() {
        withKnownIssue {
            let store = makeStore()
            store.send(.load) { $0.isLoading = true }
        } matching: { issue in
            text(issue).contains("Must handle 1 action received before the test store was deallocated")
        }
    }

    @Test func sendingWhileActionsAreUnreceived() {
        let store = makeStore()
        store.send(.load) { $0.isLoading = true }
        withKnownIssue {
            // Starts from the state after `.loaded(42)`: only this failure.
            store.send(.increment) { $0.count = 43 }
        } matching: { issue in
            let message = text(issue)
            return message.contains("Must handle 1 action received before sending .increment")
                && message.contains("  • .loaded(42)")
        }
        store.finish()
    }

    @Test func receivingTheWrongAction() {
        let store = makeStore()
        store.send(.load) { $0.isLoading = true }
        withKnownIssue {
            store.receive(.loaded(1))
        } matching: { issue in
            let message = text(issue)
            return message.contains("Received an unexpected action")
                && message.contains("expected: .loaded(1)")
                && message.contains("received: .loaded(42)")
        }
        #expect(store.state.count == 42)
        store.finish()
    }

    @Test func receivingWhenNothingWasDispatched() {
        let store = makeStore()
        store.send(.increment) { $0.count = 1 }
        withKnownIssue {
            store.receive(.loaded(1))
        } matching: { issue in
            text(issue).contains("Expected to receive .loaded(1), but received no action")
        }
        store.finish()
    }

    @Test func waitingTimesOut() async {
        let store = makeStore()
        store.send(.increment) { $0.count = 1 }
        await withKnownIssue {
            await store.receive(.loaded(1), timeout: .milliseconds(30))
        } matching: { issue in
            text(issue).contains("Expected to receive .loaded(1) within")
        }
        store.finish()
    }

    @Test func wrongChangeOfAReceivedAction() {
        let store = makeStore()
        store.send(.load) { $0.isLoading = true }
        withKnownIssue {
            store.receive(.loaded(42)) { $0.count = 42 }
        } matching: { issue in
            let message = text(issue)
            return message.contains("while receiving .loaded(42)") && message.contains("  state.isLoading: true → false")
        }
        store.finish()
    }

    @Test func skippingReceivedActions() {
        let store = makeStore()
        store.send(.load) { $0.isLoading = true }
        store.skipReceivedActions()
        #expect(store.state.count == 42)
        store.finish()
    }
}

/// The README's "Testing with `TestStore`" example, as written.
@Suite struct ReadmeTestStoreExampleTests {
    @Test func loading() async {
        let loader = makeLoader()
        let store = TestStore(initialState: Counter(), reducer: counterReducer, middleware: [loader])
        store.send(.load) { $0.isLoading = true }
        store.receive(.loaded(42)) {           // dispatched by the middleware
            $0.isLoading = false
            $0.count = 42
        }
        store.send(.loadLater) { $0.isLoading = true }
        await store.receive(.loaded(7), timeout: .seconds(60)) { $0.isLoading = false; $0.count = 7 }
        store.finish()                          // fails if an action was left unreceived
    }
}
