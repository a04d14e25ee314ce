@_spi(Testing) import FastStore
import FastStoreTestSupport
import Dispatch
import Testing

/// White-box tests: a consumer whose dependencies a drain did not write is
/// skipped without running its selector.
@Suite struct StateConsumerSkippingTests {
    /// Adds `count` consumers reading `select`, returning a counter of their
    /// selector calls.
    private static func addCounted<T: Equatable>(
        _ count: Int, to consumer: StateConsumer<TreeState>, _ select: @escaping (TreeState) -> T
    ) -> SelectorCounter {
        let counter = SelectorCounter()
        for i in 0..<count {
            consumer.add({ state in counter.count(i); return select(state) }) { (_: T) in }
        }
        return counter
    }

    @Test func unaffectedSelectorsAreNotRun() {
        var rng = SeededGenerator(seed: 11)
        var state = TreeGen.state(&rng)
        let consumer = StateConsumer<TreeState>()
        let leftA = Self.addCounted(50, to: consumer) { $0.m1.inner.left.a }
        let rightB = Self.addCounted(50, to: consumer) { $0.m2.inner.right.b }
        let y = Self.addCounted(50, to: consumer) { $0.m1.y }
        let node = Self.addCounted(10, to: consumer) { $0.m1.inner }
        consumer.consume(newState: state)
        #expect(leftA.total == 50 && rightB.total == 50 && y.total == 50 && node.total == 10)

        // A deep write under m1: the leaf's readers and the node's readers
        // run; m1.y's readers (a member of m1, passed through) do not, nor do
        // readers of m2.
        _DrainSimulator.drain(&state, { $0.m1.inner.left.a += 1 }, notify: { consumer.consume(newState: $0) })
        #expect(leftA.total == 100)
        #expect(node.total == 20)
        #expect(y.total == 50)
        #expect(rightB.total == 50)

        // A write nobody reads.
        _DrainSimulator.drain(&state, { $0.m2.inner.left.a += 1 }, notify: { consumer.consume(newState: $0) })
        #expect(leftA.total == 100 && rightB.total == 50 && y.total == 50 && node.total == 20)

        // The same state again: nothing runs.
        consumer.consume(newState: state)
        #expect(leftA.total == 100 && rightB.total == 50 && y.total == 50 && node.total == 20)

        // Replacing m1's subtree: every reader below m1 runs, m2's do not.
        _DrainSimulator.drain(&state, { $0.m1 = Versioned(TreeGen.mid(&rng)) }, notify: { consumer.consume(newState: $0) })
        #expect(leftA.total == 150 && y.total == 100 && node.total == 30)
        #expect(rightB.total == 50)
        #expect(consumer._statistics.journaledConsumes == 3)
        #expect(consumer._statistics.unchangedConsumes == 1)
    }

    @Test func oneChangedLeafAmongManyRunsOneSelector() {
        // A bucketed state: 64 buckets of 16 leaves, one consumer per leaf.
        struct Bucket: Equatable { var leaves: [Int] }
        struct Buckets: Equatable { var buckets: [Versioned<Bucket>] }
        // NB: a plain array of nodes is journaled as content of its owner,
        // so the buckets hang off intermediate nodes one level each.
        struct Shelf: Equatable { var a: Versioned<Bucket>; var b: Versioned<Bucket> }
        var state = Versioned(Shelf(a: Versioned(Bucket(leaves: Array(0..<16))), b: Versioned(Bucket(leaves: Array(0..<16)))))
        let consumer = StateConsumer<Versioned<Shelf>>()
        let counter = SelectorCounter()
        for i in 0..<16 {
            consumer.add({ counter.count(i); return $0.a.leaves[i] }) { (_: Int) in }
            consumer.add({ counter.count(100 + i); return $0.b.leaves[i] }) { (_: Int) in }
        }
        consumer.consume(newState: state)
        #expect(counter.total == 32)
        _DrainSimulator.drain(&state, { $0.b.leaves[3] += 1 }, notify: { consumer.consume(newState: $0) })
        // The bucket is one node: its 16 readers run, the other bucket's do not.
        #expect(counter.total == 48)
        #expect((0..<16).allSatisfy { counter.counts[$0] == 1 })
    }

    @Test func retainedDependenciesDoNotGrowWithConsumes() {
        var rng = SeededGenerator(seed: 12)
        var state = TreeGen.state(&rng)
        let consumer = StateConsumer<TreeState>()
        for spec in treeSelectors {
            _ = spec.register(.oldNew, 0, consumer, NaiveConsumer(), EventLog(), EventLog(), SelectorCounter())
        }
        consumer.consume(newState: state)
        var registrations: [Int] = []
        for step in 0..<400 {
            _DrainSimulator.drain(&state, { state in
                TreeGen.mutate(&state, history: [], &rng)
            }, notify: { consumer.consume(newState: $0) })
            if step % 100 == 99 { registrations.append(consumer._indexRegistrationCount) }
        }
        // Each consumer's dependencies are bounded by what its selector
        // reads; nothing accumulates.
        let bound = treeSelectors.count * 12
        #expect(registrations.allSatisfy { $0 <= bound }, "\(registrations)")
    }

    @Test func concurrentConsumesAndRegistrationsStayConsistent() async {
        var rng = SeededGenerator(seed: 13)
        let states: [TreeState] = {
            var state = TreeGen.state(&rng)
            var states = [state]
            for _ in 0..<50 {
                TreeGen.mutate(&state, history: [], &rng)
                states.append(state)
            }
            return states
        }()
        let consumer = StateConsumer<TreeState>()
        let specs = treeSelectors
        for spec in specs.prefix(8) {
            _ = spec.register(.oldNew, 0, consumer, NaiveConsumer(), EventLog(), EventLog(), SelectorCounter())
        }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for (i, state) in states.enumerated() where i % 4 == worker || worker == 0 {
                        consumer.consume(newState: state)
                    }
                }
            }
            group.addTask {
                for _ in 0..<50 {
                    let handle = consumer.add({ $0.m1.y }) { (_: Int) in }
                    consumer.remove(handle)
                }
            }
        }
        #expect(consumer.count == 8)
        // The consumer still works: a final state is delivered consistently.
        var last = states.last!
        _DrainSimulator.drain(&last, { $0.count = 99 }, notify: { consumer.consume(newState: $0) })
        let consumes = states.count + (1...3).reduce(0) { total, worker in
            total + states.indices.filter { $0 % 4 == worker }.count
        } + 1
        let statistics = consumer._statistics
        #expect(statistics.fullConsumes + statistics.journaledConsumes + statistics.unchangedConsumes == consumes)
    }
}
