import FastStore
@testable import FastStoreTesting
import Testing

/// The text of an issue's comments.
func text(_ issue: Issue) -> String {
    issue.comments.map(\.rawValue).joined(separator: "\n")
}

@Suite struct TestStoreSendTests {
    @Test func sendAssertsTheChange() {
        let store = makeStore()
        store.send(.increment) { $0.count = 1 }
        store.send(.set(5)) { $0.count = 5 }
        store.send(.noop)
        store.send(.rename(id: 1, title: "x"))  // no such row: no change
        #expect(store.state.count == 5)
        store.finish()
    }

    @Test func wrongExpectedChangeShowsOnlyTheDifferingPath() {
        let store = makeStore()
        withKnownIssue {
            store.send(.increment) { $0.count = 2 }
        } matching: { issue in
            let message = text(issue)
            return message.contains("does not match expectation while sending .increment (expected → actual)")
                && message.contains("  state.count: 2 → 1")
                && message.split(separator: "\n").count == 2
        }
        // The actual state is taken as asserted: the next step starts from it.
        store.send(.increment) { $0.count = 2 }
        store.finish()
    }

    @Test func unexpectedExtraChange() {
        let store = makeStore()
        withKnownIssue {
            store.send(.incrementAndLog) { $0.count = 1 }
        } matching: { issue in
            let message = text(issue)
            return message.contains("  state.history[0]: (absent) → 1") && !message.contains("state.count")
        }
        store.finish()
    }

    @Test func changeWhereNoneWasExpected() {
        let store = makeStore()
        withKnownIssue {
            store.send(.increment)
        } matching: { issue in
            let message = text(issue)
            return message.contains("but no change was expected") && message.contains("  state.count: 0 → 1")
        }
        store.finish()
    }

    @Test func missingChange() {
        let store = makeStore()
        withKnownIssue {
            store.send(.increment) {
                $0.count = 1
                $0.text = "one"
            }
        } matching: { issue in
            let message = text(issue)
            return message.contains(#"  state.text: "one" → """#) && !message.contains("state.count")
        }
        store.finish()
    }

    @Test func closureThatChangesNothing() {
        let store = makeStore()
        withKnownIssue {
            store.send(.noop) { _ in }
        } matching: { issue in
            text(issue).contains("the closure changed nothing")
        }
        store.finish()
    }

    @Test func throwingClosure() {
        struct Oops: Error {}
        let store = makeStore()
        withKnownIssue {
            store.send(.increment) { _ in throw Oops() }
        } matching: { issue in
            text(issue).contains("Threw error while sending .increment")
        }
        store.finish()
    }

    @Test func pathThroughIdentifiedListRow() {
        let store = makeStore(Counter(rows: [Row(id: 1, title: "a"), Row(id: 2, title: "b")]))
        store.send(.rename(id: 2, title: "c")) { $0.rows[id: 2]?.title = "c" }
        withKnownIssue {
            store.send(.rename(id: 2, title: "d")) { $0.rows[id: 2]?.title = "e" }
        } matching: { issue in
            let message = text(issue)
            return message.contains(#"  state.rows[id: 2].title: "e" → "d""#)
                && message.split(separator: "\n").count == 2
        }
        store.finish()
    }

    @Test func pathThroughVersionedNode() {
        let store = makeStore()
        withKnownIssue {
            store.send(.setTheme("dark")) { $0.settings.theme = "dim" }
        } matching: { issue in
            text(issue).contains(#"  state.settings.theme: "dim" → "dark""#)
        }
        store.finish()
    }
}
