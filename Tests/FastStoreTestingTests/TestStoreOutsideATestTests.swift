import FastStore
import FastStoreTesting
import Testing

/// A failure found where no test framework records it (a script, a tool, an
/// exit test's child process) is never dropped: it goes to standard error
/// and the process exits with a failure.
@Suite struct TestStoreOutsideATestTests {
    @Test func aFailureOutsideAnyTestFailsTheProcessAndSaysWhy() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = TestStore<Counter, CounterAction>(initialState: Counter(), reducer: counterReducer)
            store.send(.increment) { $0.count = 2 }     // the reducer makes it 1
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("state.count: 2 → 1"), "got: \(message)")
        #expect(message.contains("no test framework recorded this failure"), "got: \(message)")
        #expect(message.contains("TestStoreOutsideATestTests.swift:"), "the failure's place: \(message)")
    }

    @Test func passingStepsOutsideAnyTestExitNormally() async {
        await #expect(processExitsWith: .success) {
            let store = TestStore<Counter, CounterAction>(initialState: Counter(), reducer: counterReducer)
            store.send(.increment) { $0.count = 1 }
            store.finish()
        }
    }
}
