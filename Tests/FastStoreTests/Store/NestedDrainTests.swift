import FastStore
import FastStoreTestSupport
import Foundation
import Testing

/// Drains that nest on one thread: a store's reducer, middleware or
/// subscriber dispatches into another store that was idle, whose drain then
/// runs inside the first one's. The calls that would wait for a store's own
/// drain (a history move, `waitUntilIdle()`) are refused when that drain is
/// anywhere up the thread's stack, not only when it is the innermost one.
@Suite struct NestedDrainTests {
    /// What a nested drain saw, handed back from the thread that ran it.
    final class Outcome: @unchecked Sendable {
        var errors: [String: any Error] = [:]
        var states: [String: Int] = [:]
    }

    @Test func aHistoryMoveFromAnotherStoresDrainInsideThisStoresDrainThrows() {
        let outcome = Outcome()
        // NB: before the fix the move was queued behind the drain up this
        // thread's stack and waited for it: the thread never returned.
        let finished = returnsOnAnotherThread {
            let a = Store<Int, Int>(state: 0) { $0 += $1 }
            let historyOfA = StoreHistory(a)
            let b = Store<Int, Int>(state: 0) { $0 += $1 }
            a.dispatch(1)
            let inB = b.subscribe { _ in
                do { try historyOfA.undo() } catch { outcome.errors["a"] = error }
            }
            let inA = a.subscribe { state in if state == 3 { b.dispatch(1) } }
            a.dispatch(2)
            inA.cancel()
            inB.cancel()
            outcome.states["a"] = a.state
            // Outside every drain, the same move is made.
            do { try historyOfA.undo() } catch { outcome.errors["after"] = error }
            outcome.states["after"] = a.state
        }
        #expect(finished, "the move from B's drain inside A's drain returned (no wait for A's drain up the stack)")
        guard finished else { return }
        #expect(outcome.errors["a"] as? StoreHistoryError == .insideDrain)
        #expect(outcome.states["a"] == 3, "the refused move changed nothing")
        #expect(outcome.errors["after"] == nil)
        #expect(outcome.states["after"] == 1)
    }

    @Test func everyStoreDrainingUpTheStackRefusesAndAnIdleOneMoves() {
        let outcome = Outcome()
        let finished = returnsOnAnotherThread {
            // A's subscriber dispatches into B, B's into C: from C's drain,
            // A (two drains up) and B (one up) refuse; D, idle, moves in a
            // drain of its own, a fourth one deep.
            let a = Store<Int, Int>(state: 0) { $0 += $1 }
            let b = Store<Int, Int>(state: 0) { $0 += $1 }
            let c = Store<Int, Int>(state: 0) { $0 += $1 }
            let d = Store<Int, Int>(state: 0) { $0 += $1 }
            let (historyOfA, historyOfB, historyOfD) = (StoreHistory(a), StoreHistory(b), StoreHistory(d))
            a.dispatch(1)
            b.dispatch(1)
            d.dispatch(1)
            let inC = c.subscribe { _ in
                do { try historyOfA.undo() } catch { outcome.errors["a"] = error }
                do { try historyOfB.undo() } catch { outcome.errors["b"] = error }
                do { try historyOfD.undo() } catch { outcome.errors["d"] = error }
                outcome.states["d"] = d.state
            }
            let inB = b.subscribe { _ in c.dispatch(1) }
            let inA = a.subscribe { _ in b.dispatch(1) }
            a.dispatch(1)
            for subscription in [inA, inB, inC] { subscription.cancel() }
            // The drains unwound: nothing is left marked as draining.
            do { try historyOfA.undo() } catch { outcome.errors["a after"] = error }
            do { try historyOfB.undo() } catch { outcome.errors["b after"] = error }
            outcome.states["a after"] = a.state
            outcome.states["b after"] = b.state
        }
        #expect(finished, "the moves from C's drain returned (no wait for a drain up the stack)")
        guard finished else { return }
        #expect(outcome.errors["a"] as? StoreHistoryError == .insideDrain)
        #expect(outcome.errors["b"] as? StoreHistoryError == .insideDrain)
        #expect(outcome.errors["d"] == nil)
        #expect(outcome.states["d"] == 0)
        #expect(outcome.errors["a after"] == nil && outcome.errors["b after"] == nil)
        #expect(outcome.states["a after"] == 1 && outcome.states["b after"] == 1)
    }

    @Test func waitUntilIdleFromAnotherStoresDrainInsideThisStoresDrainStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            // NB: a watchdog: before the fix the wait spun forever on the
            // drain up its own stack; a success exit then fails this
            // expectation instead of hanging the run.
            Thread {
                Thread.sleep(forTimeInterval: 30)
                exit(0)
            }.start()
            let a = Store<Int, Int>(state: 0) { $0 += $1 }
            let b = Store<Int, Int>(state: 0) { $0 += $1 }
            let inB = b.subscribe { _ in a.waitUntilIdle() }
            let inA = a.subscribe { _ in b.dispatch(1) }
            a.dispatch(1)
            inA.cancel()
            inB.cancel()
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("waitUntilIdle() called from inside the store's own drain"), "got: \(message)")
    }

    @Test func aMiddlewareContextReadFromANestedDrainSeesThePublishedState() {
        // A's middleware reduces, then dispatches into B; B's subscriber
        // reads A's context: B's drain is not A's, so it sees A's published
        // state (what `A.state` returns), while A's middleware, around it,
        // sees the working state.
        var kept: MiddlewareContext<Int, Int>?
        var seenByA: [Int] = []
        var seenByB: [Int] = []
        let b = Store<Int, Int>(state: 0) { $0 += $1 }
        let inB = b.subscribe { _ in seenByB.append(kept!.state) }
        let forward = Middleware<Int, Int> { context, action, next in
            kept = context
            next(action)
            seenByA.append(context.state)
            b.dispatch(action)
            seenByA.append(context.state)
        }
        let a = Store<Int, Int>(state: 10, reducer: { $0 += $1 }, middleware: [forward])
        a.dispatch(1)
        #expect(seenByA == [11, 11])
        #expect(seenByB == [10])
        #expect(kept!.state == 11)
        inB.cancel()
    }
}
