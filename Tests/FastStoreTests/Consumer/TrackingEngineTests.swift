@_spi(Testing) @testable import FastStore
import FastStoreTestSupport
import Testing

/// White-box tests of the tracking engine's parts: the consuming turn's
/// state machine, the change log, the selection classifier.
@Suite struct TrackingEngineTests {
    @Test func theTurnQueuesWhileTakenAndHandsOverInOrder() {
        var turn = _ConsumeTurn<Int>()
        let first = turn.arrive(1)
        #expect(first, "a free turn is taken by the first arrival")
        let second = turn.arrive(2), third = turn.arrive(3)
        #expect(!second && !third, "later arrivals are queued")
        let taken = turn.takeIfFree()
        #expect(!taken)
        var next = turn.next()
        #expect(next == 2)
        let fourth = turn.arrive(4)
        #expect(!fourth, "still taken while the holder drains the queue")
        next = turn.next()
        #expect(next == 3)
        next = turn.next()
        #expect(next == 4)
        next = turn.next()
        #expect(next == nil, "the queue is empty: the turn is given up")
        #expect(!turn.isTaken)
        let free = turn.takeIfFree()
        #expect(free)
        next = turn.next()
        #expect(next == nil)
    }

    /// Drains through `log`, as a store does.
    private func drain(_ state: inout TreeState, _ log: _ChangeLog, _ mutate: (inout TreeState) -> Void) {
        let journal = _WriteJournal()
        let old = state._trackingIdentity
        journal.record { mutate(&state) }
        log.publish(_DrainChanges(journal: journal, oldRoot: old, newRoot: state._trackingIdentity))
    }

    @Test func theChangeLogLinksDrainsAndForgetsTheOldest() {
        var rng = SeededGenerator(seed: 11)
        var state = TreeGen.state(&rng)
        let log = _ChangeLog(capacity: 4, writeCapacity: 1000)
        defer { log.unfile() }
        var spans: [_DrainChanges] = []
        let start = state._trackingIdentity
        drain(&state, log) { $0.count += 1 }
        let afterOne = state._trackingIdentity
        drain(&state, log) { $0.m1.y += 1 }
        drain(&state, log) { $0.leaf.a += 1 }
        #expect(log.spans(from: start, to: state._trackingIdentity, into: &spans))
        #expect(spans.count == 3 && spans.first?.oldRoot == start)
        #expect(log.spans(from: afterOne, to: state._trackingIdentity, into: &spans) && spans.count == 2)
        #expect(!log.spans(from: state._trackingIdentity, to: start, into: &spans), "backwards: no step")
        // An unjournaled write breaks the link.
        let before = state._trackingIdentity
        state.count += 1
        drain(&state, log) { $0.count += 1 }
        #expect(!log.spans(from: before, to: state._trackingIdentity, into: &spans))
        // Capacity 4: the first drains are forgotten.
        drain(&state, log) { $0.count += 1 }
        drain(&state, log) { $0.count += 1 }
        #expect(!log.spans(from: start, to: afterOne, into: &spans), "evicted")
        // A wholesale replacement is not logged (its chain is broken).
        let kept = state
        drain(&state, log) { $0 = TreeGen.state(&rng) }
        #expect(!log.spans(from: kept._trackingIdentity, to: state._trackingIdentity, into: &spans))
    }

    @Test func theChangeLogBoundsItsWrites() {
        var rng = SeededGenerator(seed: 12)
        var state = TreeGen.state(&rng)
        let log = _ChangeLog(capacity: 100, writeCapacity: 4)
        defer { log.unfile() }
        var spans: [_DrainChanges] = []
        let start = state._trackingIdentity
        drain(&state, log) { $0.count += 1; $0.count += 1 }
        let middle = state._trackingIdentity
        drain(&state, log) { $0.count += 1; $0.count += 1; $0.count += 1 }
        #expect(log.spans(from: middle, to: state._trackingIdentity, into: &spans))
        #expect(!log.spans(from: start, to: state._trackingIdentity, into: &spans), "dropped to stay within 4 writes")
        let big = state._trackingIdentity
        drain(&state, log) { for _ in 0 ..< 5 { $0.count += 1 } }
        #expect(!log.spans(from: big, to: state._trackingIdentity, into: &spans), "larger than the log: not logged")
    }

    struct Plain { var a: Int; var b: String; var c: [Double]; var d: (Int, Bool) }
    struct Holding { var a: Int; var node: Versioned<Int>? }
    struct Recursive { var name: String; var children: [Recursive]; var node: Versioned<Int>? }
    struct RecursivePlain { var name: String; var children: [RecursivePlain] }
    enum Small { case a, b, c }
    enum Payload { case none, some(Versioned<Int>) }
    final class Reference {}

    @Test func theClassifierKnowsWhatCannotHoldANode() {
        #expect(!_SelectionTracking.mayHoldNodes(Int.self))
        #expect(!_SelectionTracking.mayHoldNodes(String?.self))
        #expect(!_SelectionTracking.mayHoldNodes([String: [Int]].self))
        #expect(!_SelectionTracking.mayHoldNodes(Plain.self))
        #expect(!_SelectionTracking.mayHoldNodes(Small.self))
        #expect(!_SelectionTracking.mayHoldNodes(RecursivePlain.self))
        #expect(!_SelectionTracking.mayHoldNodes([RecursivePlain].self))
        #expect(_SelectionTracking.mayHoldNodes(Versioned<Int>.self))
        #expect(_SelectionTracking.mayHoldNodes([Versioned<Int>].self))
        #expect(_SelectionTracking.mayHoldNodes(Holding.self))
        #expect(_SelectionTracking.mayHoldNodes(Payload.self))
        #expect(_SelectionTracking.mayHoldNodes(Reference.self))
        #expect(_SelectionTracking.mayHoldNodes(Any.self))
        // Classified inner type first, then the outer one: the same answers.
        #expect(_SelectionTracking.mayHoldNodes(Recursive.self))
        #expect(_SelectionTracking.mayHoldNodes([Recursive].self))
    }
}

/// Element keys are tracked by hash (`_ElementKey`): keys whose hashes
/// collide are taken for one element. That may wake a reader of one key for
/// a write of the other (it compares and is not called), and must never
/// hide a write.
@Suite struct ElementKeyCollisionTests {
    /// Every value hashes alike.
    struct Colliding: Hashable {
        let value: Int
        func hash(into hasher: inout Hasher) { hasher.combine(0) }
    }

    struct Fields {
        var byKey: VersionedDictionary<Colliding, Int>
        var byInt: VersionedDictionary<Int, Int>
    }

    enum Action { case setColliding(Int, Int), setInt(Int, Int) }

    @Test func collidingKeysWakeEachOthersReadersButNeverHideAWrite() {
        let a = Colliding(value: 1), b = Colliding(value: 2)
        #expect(_ElementKey(a) == _ElementKey(b), "the test needs colliding tracking keys")
        #expect(_ElementKey(1) != _ElementKey(2))
        let store = Store(
            state: Versioned(Fields(byKey: [a: 0, b: 0], byInt: [1: 0, 2: 0])),
            reducer: { (state: inout Versioned<Fields>, action: Action) in
                switch action {
                case .setColliding(let key, let value): state.byKey[Colliding(value: key)] = value
                case .setInt(let key, let value): state.byInt[key] = value
                }
            })
        let consumer = StateConsumer<Versioned<Fields>>()
        var calls: [String] = []
        let readerA = consumer.add({ $0.byKey[a] }) { (_: Int??, new: Int?) in calls.append("a=\(new.map(String.init) ?? "nil")") }
        let readerB = consumer.add({ $0.byKey[b] }) { (_: Int??, new: Int?) in calls.append("b=\(new.map(String.init) ?? "nil")") }
        let reader1 = consumer.add({ $0.byInt[1] }) { (_: Int??, new: Int?) in calls.append("1=\(new.map(String.init) ?? "nil")") }
        let reader2 = consumer.add({ $0.byInt[2] }) { (_: Int??, new: Int?) in calls.append("2=\(new.map(String.init) ?? "nil")") }
        let subscription = consumer.connect(to: store)
        calls.removeAll()

        let before = (a: readerA._evaluationCount, b: readerB._evaluationCount)
        store.dispatch(.setColliding(2, 7))
        #expect(calls == ["b=7"], "the written key's reader is called, the colliding one is not")
        #expect(readerB._evaluationCount == before.b + 1)
        #expect(readerA._evaluationCount == before.a + 1, "a colliding key's reader is woken and compares")
        store.dispatch(.setColliding(1, 5))
        #expect(calls == ["b=7", "a=5"], "a write behind a collision is still seen")

        let ints = (one: reader1._evaluationCount, two: reader2._evaluationCount)
        store.dispatch(.setInt(2, 9))
        #expect(calls == ["b=7", "a=5", "2=9"])
        #expect(reader1._evaluationCount == ints.one, "distinct keys: the other reader is not even evaluated")
        #expect(reader2._evaluationCount == ints.two + 1)
        withExtendedLifetime(subscription) {}
    }
}
