@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

// ReSwiftConsumer's README state, plain (unversioned).
private struct AppState: Equatable {
    var counter = 0
    var name: String? = nil
    var works: [String] = []
    var foreground = false
}

private final class Recorder: @unchecked Sendable {
    var lines: [String] = []
    func callAsFunction(_ line: String) { lines.append(line) }
    func take() -> [String] { defer { lines = [] }; return lines }
}

@Suite struct StateConsumerTests {
    // MARK: ReSwiftConsumer API on plain state

    @Test func readmeCallbackShapesOnPlainState() {
        let log = Recorder()
        let consumer = StateConsumer<AppState>()
        func onCounterChanged(old: Int, new: Int) { log("counter \(old)->\(new)") }
        func onNameChanged(old: String?, new: String?) { log("name \(old ?? "nil")->\(new ?? "nil")") }
        func onWorksChanged(old: [String]?, new: [String]) { log("works \(old ?? [])->\(new)") }
        func onForegroundChanged(curr: Bool) { log("foreground \(curr)") }
        func onCountChanged(prev: Int?, curr: Int) { log("count \(prev.map(String.init) ?? "nil")->\(curr)") }
        consumer.add({ state in state.counter }, onCounterChanged)
        consumer.add({ state in state.name }, onNameChanged)
        consumer.add({ state in state.works }, onWorksChanged)
        consumer.add({ state in state.foreground }, onForegroundChanged)
        consumer.add(\.counter, onCountChanged)  // a key path selector

        var state = AppState()
        consumer.consume(newState: state)
        // (old, new) non-optional: not called without an old value; a first
        // `nil` optional selection is no change.
        #expect(log.take() == ["works []->[]", "foreground false", "count nil->0"])

        state.counter = 1
        state.name = "kim"
        state.works = ["a"]
        consumer.consume(newState: state)
        #expect(log.take() == ["counter 0->1", "name nil->kim", "works []->[\"a\"]", "count 0->1"])

        consumer.consume(newState: state)
        #expect(log.take().isEmpty)

        state.name = nil
        state.foreground = true
        consumer.consume(newState: state)
        #expect(log.take() == ["name kim->nil", "foreground true"])
    }

    @Test func optionalSelectionShapes() {
        let log = Recorder()
        let consumer = StateConsumer<AppState>()
        consumer.add({ $0.name }) { (new: String?) in log("new \(new ?? "nil")") }
        consumer.add({ $0.name }) { (old: String?, new: String) in log("nonnil \(old ?? "nil")->\(new)") }
        var state = AppState()
        consumer.consume(newState: state)
        #expect(log.take().isEmpty)
        state.name = "a"
        consumer.consume(newState: state)
        #expect(log.take() == ["new a", "nonnil nil->a"])
        state.name = nil
        consumer.consume(newState: state)
        #expect(log.take() == ["new nil"])
    }

    @Test func predictDecidesWhetherToCall() {
        let log = Recorder()
        let consumer = StateConsumer<AppState>()
        // ReSwiftConsumer's usage: `predict` says whether old and new are the same.
        consumer.add({ $0.counter }, { (old: Int?, new: Int?) in log("\(old ?? -1)->\(new ?? -1)") },
                     predict: { old, new in old == new })
        consumer.add({ $0.counter }, { (old: Int?, new: Int) in log("near \(old ?? -1)->\(new)") },
                     predict: { old, new in
                         guard let old, let new else { return false }
                         return abs(old - new) < 5
                     })
        var state = AppState()
        consumer.consume(newState: state)
        #expect(log.take() == ["-1->0", "near -1->0"])
        state.counter = 3
        consumer.consume(newState: state)
        #expect(log.take() == ["0->3"])
        state.counter = 9
        consumer.consume(newState: state)
        #expect(log.take() == ["3->9", "near 3->9"])
    }

    @Test func consumeInstantlyCallsANewConsumerWithTheLastState() {
        let log = Recorder()
        let consumer = StateConsumer<Versioned<AppState>>()
        consumer.consumeInstantly = true
        var state = Versioned(AppState())
        // No state consumed yet: nothing to call with.
        consumer.add({ $0.counter }) { (old: Int?, new: Int) in log("a \(old ?? -1)->\(new)") }
        #expect(log.take().isEmpty)
        state.counter = 4
        consumer.consume(newState: state)
        #expect(log.take() == ["a -1->4"])
        consumer.add({ $0.counter }) { (old: Int?, new: Int) in log("b \(old ?? -1)->\(new)") }
        #expect(log.take() == ["b -1->4"])
        // The instantly evaluated consumer is not called again for the same state.
        consumer.consume(newState: state)
        #expect(log.take().isEmpty)
        consumer.consumeInstantly = false
        consumer.add({ $0.counter }) { (old: Int?, new: Int) in log("c \(old ?? -1)->\(new)") }
        #expect(log.take().isEmpty)
        consumer.consume(newState: state)
        #expect(log.take() == ["c -1->4"])
    }

    @Test func consumerBagRemovesItsConsumersTogether() {
        let log = Recorder()
        let consumer = StateConsumer<AppState>()
        let bag = ConsumerBag(consumer)
        bag.add(consumer.add({ $0.counter }) { (new: Int) in log("bag1 \(new)") })
        bag.add(consumer.add({ $0.works }) { (new: [String]) in log("bag2 \(new.count)") })
        let outside = consumer.add({ $0.counter }) { (new: Int) in log("outside \(new)") }
        bag.add(nil)
        #expect(bag.count == 2)
        #expect(consumer.count == 3)
        var state = AppState()
        consumer.consume(newState: state)
        #expect(log.take() == ["bag1 0", "bag2 0", "outside 0"])
        bag.removeAll()
        #expect(bag.count == 0)
        #expect(consumer.count == 1)
        state.counter = 1
        state.works = ["x"]
        consumer.consume(newState: state)
        #expect(log.take() == ["outside 1"])
        bag.add(outside)
        bag.remove(outside)
        #expect(consumer.count == 0)
        // Removing again, or removing everything, is harmless.
        consumer.remove(outside)
        consumer.removeAll()
    }

    @Test func aConsumerOfAnotherStateConsumerIsNotRemovedByThisOne() {
        let a = StateConsumer<AppState>(), b = StateConsumer<AppState>()
        let handleA = a.add({ $0.counter }) { (_: Int) in }
        _ = b.add({ $0.counter }) { (_: Int) in }
        b.remove(handleA)
        #expect(a.count == 1 && b.count == 1)
    }

    // MARK: Versioned state

    @Test func aConsumerAddedAfterAMutationGetsTheCurrentSelection() {
        let log = Recorder()
        var rng = SeededGenerator(seed: 1)
        var state = TreeGen.state(&rng)
        let consumer = StateConsumer<TreeState>()
        let first = consumer.add({ $0.m1.y }) { (old: Int?, new: Int) in log("first \(old ?? -1)->\(new)") }
        consumer.consume(newState: state)
        _ = log.take()
        let y0 = state.m1.y
        _DrainSimulator.drain(&state, { $0.m1.y = 7; $0.m2.y = 7 }, notify: { consumer.consume(newState: $0) })
        #expect(log.take() == ["first \(y0)->7"])
        let added = consumer.add({ $0.m2.y }) { (old: Int?, new: Int) in log("added \(old ?? -1)->\(new)") }
        // Same state again: only the new consumer runs.
        let evaluations = first._evaluationCount
        consumer.consume(newState: state)
        #expect(log.take() == ["added -1->7"])
        #expect(first._evaluationCount == evaluations)
        #expect(added._evaluationCount == 1)
        _DrainSimulator.drain(&state, { $0.m2.y = 8 }, notify: { consumer.consume(newState: $0) })
        #expect(log.take() == ["added 7->8"])
    }

    @Test func aConsumerRemovedDuringAConsumeIsNotCalled() {
        let log = Recorder()
        var rng = SeededGenerator(seed: 2)
        var state = TreeGen.state(&rng)
        let consumer = StateConsumer<TreeState>()
        var victim: ConsumerHandle<TreeState>?
        var added: ConsumerHandle<TreeState>?
        consumer.add({ $0.count }) { (new: Int) in
            log("remover \(new)")
            if let victim { consumer.remove(victim) }
            if added == nil {
                added = consumer.add({ $0.count }) { (new: Int) in log("late \(new)") }
            }
        }
        victim = consumer.add({ $0.count }) { (new: Int) in log("victim \(new)") }
        state.count = 100
        consumer.consume(newState: state)
        // The victim was removed by the first callback; the consumer added
        // during the consume waits for the next one.
        #expect(log.take() == ["remover 100"])
        _DrainSimulator.drain(&state, { $0.count = 101 }, notify: { consumer.consume(newState: $0) })
        #expect(log.take() == ["remover 101", "late 101"])
        #expect(consumer.count == 2)
    }

    /// A consumer whose first consumer (of `count`) removes every consumer
    /// once `armed` says so, then 40 more of `count` and one of a field no
    /// test below writes; nobody else keeps their handles.
    fileprivate static func selfClearingConsumer(
        _ log: Recorder, armed: @escaping () -> Bool
    ) -> StateConsumer<TreeState> {
        let consumer = StateConsumer<TreeState>()
        consumer.add({ $0.count }) { (new: Int) in
            log("first \(new)")
            if armed() { consumer.removeAll() }
        }
        for k in 0 ..< 40 {
            consumer.add({ $0.count }) { (new: Int) in log("other \(k) \(new)") }
        }
        consumer.add({ $0.m1.inner.left.a }) { (_: Int) in log("unaffected") }
        return consumer
    }

    /// The consume loop walks its plan without retaining the handles: the
    /// plan (or the registry's array it shares) holds them. A callback that
    /// removes every consumer, whose handles nobody else keeps, must leave
    /// the rest of the loop with live handles that it skips: in a full
    /// consume (the registry's array) and in a journaled one (the plan of
    /// the consumers the drain's writes affect).
    @Test(arguments: [false, true])
    func removingEveryConsumerFromACallbackSkipsTheRest(planned: Bool) {
        let log = Recorder()
        var rng = SeededGenerator(seed: 4)
        var state = TreeGen.state(&rng)
        var armed = !planned
        let consumer = Self.selfClearingConsumer(log) { armed }
        if planned {
            consumer.consume(newState: state)
            _ = log.take()
            armed = true
        }
        let journaled = consumer._statistics.journaledConsumes
        _DrainSimulator.drain(&state, { $0.count = 7 }, notify: { consumer.consume(newState: $0) })
        #expect(consumer._statistics.journaledConsumes == journaled + (planned ? 1 : 0), "a plan walked iff planned")
        #expect(log.take() == ["first 7"])
        #expect(consumer.count == 0)
        _DrainSimulator.drain(&state, { $0.count = 8 }, notify: { consumer.consume(newState: $0) })
        #expect(log.take().isEmpty)
    }

    @Test func aStateReplacedWholesaleIsFullyEvaluated() {
        let log = Recorder()
        var rng = SeededGenerator(seed: 3)
        var state = TreeGen.state(&rng)
        let consumer = StateConsumer<TreeState>()
        consumer.add({ $0.m1.inner.left.a }) { (new: Int) in log("a \(new)") }
        consumer.add({ $0.leaf }) { (new: Versioned<TreeLeaf>) in log("leaf \(new.value)") }
        consumer.consume(newState: state)
        _ = log.take()
        var replacement = TreeGen.root(&rng)
        replacement.m1.inner.left.a = state.m1.inner.left.a + 1
        replacement.leaf = Versioned(TreeLeaf(a: 9, b: 9))

        // With a journal: the drain assigns a whole new state.
        let before = consumer._statistics
        _DrainSimulator.drain(&state, { $0 = Versioned(replacement) }, notify: { consumer.consume(newState: $0) })
        #expect(log.take() == ["a \(replacement.m1.inner.left.a)", "leaf L(9,9)"])
        #expect(consumer._statistics.fullConsumes == before.fullConsumes + 1)

        // Without a journal: the root's value replaced in place.
        replacement.leaf = Versioned(TreeLeaf(a: 8, b: 8))
        state.value = replacement
        consumer.consume(newState: state)
        #expect(log.take() == ["leaf L(8,8)"])

        // With a journal, the root's value replaced in place: journaled
        // content of the root, every reader of the root runs.
        replacement.m1.inner.left.a += 1
        _DrainSimulator.drain(&state, { $0.value = replacement }, notify: { consumer.consume(newState: $0) })
        #expect(log.take() == ["a \(replacement.m1.inner.left.a)"])
        #expect(consumer._statistics.journaledConsumes == before.journaledConsumes + 1)
    }

    @Test func aSelectorThatReadsNothingVersionedRunsEveryTime() {
        var rng = SeededGenerator(seed: 4)
        var state = TreeGen.state(&rng)
        let consumer = StateConsumer<TreeState>()
        let external = Recorder()  // an outside source the selector reads
        let log = Recorder()
        let handle = consumer.add({ _ in external.lines.count }) { (new: Int) in log("external \(new)") }
        consumer.consume(newState: state)
        #expect(log.take() == ["external 0"])
        external("x")
        _DrainSimulator.drain(&state, { $0.m2.inner.left.a += 1 }, notify: { consumer.consume(newState: $0) })
        #expect(log.take() == ["external 1"])
        consumer.consume(newState: state)
        #expect(handle._evaluationCount == 3)
        #expect(consumer._indexRegistrationCount == 0)
    }

    @Test func aSelectionThatIsANodeSeesWritesBelowIt() {
        let log = Recorder()
        var rng = SeededGenerator(seed: 5)
        var state = TreeGen.state(&rng)
        let consumer = StateConsumer<TreeState>()
        consumer.add({ $0.m1.inner }) { (old: Versioned<TreeInner>?, new: Versioned<TreeInner>) in
            log("inner \(old?.left.a ?? -1)->\(new.left.a)")
        }
        consumer.consume(newState: state)
        _ = log.take()
        let a = state.m1.inner.left.a
        _DrainSimulator.drain(&state, { $0.m1.inner.left.a = a + 1 }, notify: { consumer.consume(newState: $0) })
        #expect(log.take() == ["inner \(a)->\(a + 1)"])
        // A write elsewhere does not run it.
        _DrainSimulator.drain(&state, { $0.m2.inner.left.a += 1 }, notify: { consumer.consume(newState: $0) })
        #expect(log.take().isEmpty)
    }

    @Test func statesFromElsewhereAreFullyEvaluated() {
        let log = Recorder()
        var rng = SeededGenerator(seed: 6)
        var state = TreeGen.state(&rng)
        let consumer = StateConsumer<TreeState>()
        consumer.add({ $0.m1.y }) { (new: Int) in log("y \(new)") }
        consumer.consume(newState: state)
        _ = log.take()
        // A drain the consumer did not see: the (simulated) store's change
        // log still holds it, so the next consume covers both drains' writes.
        let drains = _SimulatedDrains<TreeState>()
        drains.drain(&state, { $0.m1.y = 10 }, notify: { _ in })
        drains.drain(&state, { $0.m2.y = 10 }, notify: { consumer.consume(newState: $0) })
        #expect(log.take() == ["y 10"])
        #expect(consumer._statistics.journaledConsumes == 1)
        // A mutation outside any drain: nothing proves the step.
        state.m1.y = 11
        consumer.consume(newState: state)
        #expect(log.take() == ["y 11"])
        // A state built elsewhere.
        var other = TreeGen.state(&rng)
        other.m1.y = 12
        consumer.consume(newState: other)
        #expect(log.take() == ["y 12"])
        // An older state (an undo outside any store).
        consumer.consume(newState: state)
        #expect(log.take() == ["y 11"])
        #expect(consumer._statistics.journaledConsumes == 1)
        #expect(consumer._statistics.fullConsumes == 4)
    }

    @Test func reentrantConsumeIsQueuedAndDeliveredAfter() {
        let log = Recorder()
        var state = Versioned(AppState())
        let consumer = StateConsumer<Versioned<AppState>>()
        var next: Versioned<AppState>?
        consumer.add({ $0.counter }) { (new: Int) in
            log("first \(new)")
            if let pending = next {
                next = nil
                consumer.consume(newState: pending)
                log("first returned")
            }
        }
        consumer.add({ $0.counter }) { (new: Int) in log("second \(new)") }
        consumer.consume(newState: state)
        _ = log.take()
        state.counter = 1
        var later = state
        later.counter = 2
        next = later
        consumer.consume(newState: state)
        #expect(log.take() == ["first 1", "first returned", "second 1", "first 2", "second 2"])
    }
}

/// Which overload each callback shape resolves to, single-expression and
/// multi-statement selectors alike (each shape is told apart by when it
/// fires on a first `nil` or first value).
@Suite struct StateConsumerOverloadTests {
    private struct S: Equatable { var count = 1; var name: String? = "a" }

    @Test func callbackShapesResolveToReSwiftConsumerSemantics() {
        let consumer = StateConsumer<S>()
        var calls: [String] = []
        consumer.add({ $0.count }) { (old: Int, new: Int) in calls.append("strict") }    // never first
        consumer.add({ s in let x = s.count; return x }) { (old: Int?, new: Int) in calls.append("oldNew") }
        consumer.add({ $0.name }) { (old: String?, new: String?) in calls.append("optional") }  // fires: nil -> a
        consumer.add({ s in let x = s.name; return x }) { (new: String?) in calls.append("optionalNew") }
        consumer.add({ s in let x = s.name; return x }) { (old: String?, new: String) in calls.append("nonNilNew") }
        consumer.add({ $0.count }) { (new: Int) in calls.append("new") }
        consumer.consume(newState: S())
        #expect(calls == ["oldNew", "optional", "optionalNew", "nonNilNew", "new"])
        calls.removeAll()
        consumer.consume(newState: S(count: 2, name: nil))
        #expect(calls == ["strict", "oldNew", "optional", "optionalNew", "new"])
    }
}
