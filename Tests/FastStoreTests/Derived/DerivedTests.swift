@_spi(Testing) import FastStore
import Dispatch
import FastStoreTestSupport
import Foundation
import Observation
import Testing

/// Memoized derived values: shared by every reader, recomputed only when
/// an input was written, reported to whoever reads them.
@Suite struct DerivedTests {
    struct Todo: Identifiable, Equatable, Sendable {
        let id: Int
        var done = false
    }

    struct App: Sendable {
        var todos: IdentifiedList<Todo>
        var counter = 0
    }

    enum Action: Sendable { case toggle(Int), bump, replaceTodos }

    enum Remaining: CountingSummary {
        static func counts(_ todo: Todo) -> Bool { !todo.done }
    }

    typealias State = Versioned<App>

    static func makeStore(_ n: Int = 1_000) -> Store<State, Action> {
        let todos = IdentifiedList((0 ..< n).map { Todo(id: $0) }, folds: [Remaining.self])
        return Store(state: State(App(todos: todos))) { state, action in
            switch action {
            case .toggle(let id): state.todos[id: id]?.done.toggle()
            case .bump: state.counter += 1
            case .replaceTodos: state.todos = IdentifiedList(Array(state.todos), folds: [Remaining.self])
            }
        }
    }

    // NB: exact counts of computations and evaluations, and no state the
    // store's change log could not link (`counts(_:_:unlinked:)`, with the
    // object's own count): each store logs its own drains.

    @Test func oneComputationIsSharedByEveryConsumer() {
        let store = Self.makeStore()
        let remaining = Derived { (state: State) in state.todos.fold(Remaining.self) }
        let consumer = StateConsumer<State>()
        var delivered = 0
        var handles: [ConsumerHandle<State>] = []
        for _ in 0 ..< 100 {
            handles.append(consumer.add({ remaining($0) }) { (_: Int?, _: Int) in delivered += 1 })
        }
        let subscription = consumer.connect(to: store)
        #expect(counts(remaining._computeCount, 1, unlinked: remaining._unlinkedChecks), "the first consume: one computation for 100 readers")
        #expect(delivered == 100)
        delivered = 0

        store.dispatch(.toggle(5))
        #expect(counts(remaining._computeCount, 2, unlinked: remaining._unlinkedChecks))
        #expect(delivered == 100)
        #expect(remaining(store.state) == 999, "read again after the drain: the memo")
        #expect(counts(remaining._computeCount, 2, unlinked: remaining._unlinkedChecks))

        let evaluations = consumer._statistics.evaluations
        store.dispatch(.bump)
        #expect(counts(remaining._computeCount, 2, unlinked: remaining._unlinkedChecks), "the counter is not an input")
        #expect(counts(consumer._statistics.evaluations, evaluations, unlinked: consumer._statistics.unlinkedConsumes), "nor is any of the 100 consumers evaluated")
        #expect(remaining(store.state) == 999)
        #expect(counts(remaining._computeCount, 2, unlinked: remaining._unlinkedChecks))

        store.dispatch(.replaceTodos)
        #expect(counts(remaining._computeCount, 3, unlinked: remaining._unlinkedChecks), "a wholesale assignment writes the input")
        #expect(delivered == 100, "an equal value is delivered to nobody")
        withExtendedLifetime((subscription, handles)) {}
    }

    @Test func aDerivedValueIsTheInputOfAnother() {
        let store = Self.makeStore(10)
        let remaining = Derived { (state: State) in state.todos.fold(Remaining.self) }
        let label = Derived { (state: State) in "\(remaining(state)) of \(state.todos.count) left" }
        #expect(label(store.state) == "10 of 10 left")
        #expect(counts(remaining._computeCount, 1, unlinked: remaining._unlinkedChecks) && counts(label._computeCount, 1, unlinked: label._unlinkedChecks))
        store.dispatch(.toggle(2))
        #expect(label(store.state) == "9 of 10 left")
        #expect(counts(remaining._computeCount, 2, unlinked: remaining._unlinkedChecks) && counts(label._computeCount, 2, unlinked: label._unlinkedChecks))
        store.dispatch(.bump)
        #expect(label(store.state) == "9 of 10 left")
        #expect(counts(remaining._computeCount, 2, unlinked: remaining._unlinkedChecks) && counts(label._computeCount, 2, unlinked: label._unlinkedChecks), "neither input was written")
    }

    @Test func olderAndUnrelatedStatesAreComputedNotGuessed() {
        let store = Self.makeStore(10)
        let remaining = Derived { (state: State) in state.todos.fold(Remaining.self) }
        let before = store.state
        store.dispatch(.toggle(1))
        #expect(remaining(store.state) == 9)
        #expect(remaining(before) == 10, "an older version: computed again")
        #expect(remaining._computeCount == 2)
        // Another store's state, with the same shape: another root.
        let other = Self.makeStore(4)
        #expect(remaining(other.state) == 4)
        #expect(remaining._computeCount == 3)
        // A state written outside any store: its root has a stamp no drain
        // logged, so the memo cannot be proved for it.
        var edited = store.state
        edited.todos[id: 3]?.done = true
        #expect(remaining(edited) == 8)
        #expect(remaining._computeCount == 4)
    }

    @Test func plainStateComputesAtEveryRead() {
        struct Plain: Equatable { var items: [Int] }
        let sum = Derived { (state: Plain) in state.items.reduce(0, +) }
        let state = Plain(items: [1, 2, 3])
        #expect(sum(state) == 6)
        #expect(sum(state) == 6)
        #expect(sum._computeCount == 2)
        #expect(!sum._isMemoized)
    }

    final class Box: Equatable, Sendable {
        let value: Int
        init(_ value: Int) { self.value = value }
        static func == (a: Box, b: Box) -> Bool { a.value == b.value }
    }

    @Test func anUntrackableValueIsNotMemoizedAndItsReadersRunAtEveryConsume() {
        let store = Self.makeStore(10)
        let boxed = Derived { (state: State) in Box(state.todos.fold(Remaining.self)) }
        let constant = Derived { (_: State) in 42 }
        #expect(boxed(store.state).value == 10)
        #expect(!boxed._isMemoized, "a class instance may change without a write")
        #expect(constant(store.state) == 42)
        #expect(!constant._isMemoized, "it read nothing versioned: nothing tells when it changes")

        let consumer = StateConsumer<State>()
        var evaluations = 0
        consumer.add({ state -> Int in evaluations += 1; return constant(state) + state.counter }) { (_: Int?, _: Int) in }
        let subscription = consumer.connect(to: store)
        store.dispatch(.toggle(1))
        store.dispatch(.toggle(2))
        #expect(evaluations == 3, "evaluated at every consume, though it reads only the counter")
        withExtendedLifetime(subscription) {}
    }

    @Test func aTrackedReadIsInvalidatedByItsInputsOnly() {
        let store = Self.makeStore(100)
        let remaining = Derived { (state: State) in state.todos.fold(Remaining.self) }
        let fired = Locked(0)
        func track() {
            withObservationTracking {
                _ = remaining(store.state)
            } onChange: {
                fired.withValue { $0 += 1 }
            }
        }
        track()
        store.dispatch(.bump)
        #expect(fired.withValue { $0 } == 0, "the counter is not an input")
        store.dispatch(.toggle(4))
        #expect(fired.withValue { $0 } == 1)
        // Tracked again, after a change of something else: from the memo
        // (no computation), with the same registrations.
        #expect(remaining(store.state) == 99)
        store.dispatch(.bump)
        let computed = remaining._computeCount
        track()
        #expect(counts(remaining._computeCount, computed, unlinked: remaining._unlinkedChecks))
        store.dispatch(.toggle(7))
        #expect(fired.withValue { $0 } == 2)
    }

    @Test func aSequenceOfADerivedValueYieldsItsChangesOnly() async {
        let store = Self.makeStore(50)
        let remaining = Derived { (state: State) in state.todos.fold(Remaining.self) }
        var iterator = store.values { remaining($0) }.makeAsyncIterator()
        #expect(await iterator.next() == 50)
        store.dispatch(.bump)
        store.dispatch(.toggle(3))
        #expect(await iterator.next() == 49, "the bump yielded nothing")
        #expect(remaining(store.state) == 49)
        #expect(counts(remaining._computeCount, 2, unlinked: remaining._unlinkedChecks),
                "the sequence and this read share one computation per change")
    }

    @Test func readsFromManyThreadsWhileDispatchingAgreeWithTheirState() async {
        let store = Self.makeStore(200)
        let remaining = Derived { (state: State) in state.todos.fold(Remaining.self) }
        let wrong = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for i in 0 ..< 400 { store.dispatch(i % 3 == 0 ? .bump : .toggle(i % 200)) }
            }
            for _ in 0 ..< 3 {
                group.addTask {
                    for _ in 0 ..< 400 {
                        let state = store.state
                        let naive = Array(state.todos).filter { !$0.done }.count
                        if remaining(state) != naive { wrong.withValue { $0 += 1 } }
                    }
                }
            }
        }
        #expect(wrong.withValue { $0 } == 0)
    }
}
