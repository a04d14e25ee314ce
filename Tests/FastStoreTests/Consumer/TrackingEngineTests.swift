@testable import FastStore
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
