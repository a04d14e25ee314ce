import FastStorePersistence
import Foundation
import Testing

/// `_SaveMachine` alone: the saver's decisions (what to write, when, what a
/// write does to the history row, when to compact), step by step, with
/// instants given by the test (no clock, no thread, no file).
@Suite struct PersistenceSaveMachineTests {
    typealias Machine = _SaveMachine<String>
    let t0 = ContinuousClock.now

    /// The batch a step writes, or a description of the step.
    func written(_ step: Machine.Step) -> (String, UInt64)? {
        if case .write(let state, let number) = step { return (state, number) }
        return nil
    }

    func isCompact(_ step: Machine.Step) -> Bool { if case .compact = step { return true }; return false }
    func isStop(_ step: Machine.Step) -> Bool { if case .stop = step { return true }; return false }
    func waitsUntil(_ step: Machine.Step) -> ContinuousClock.Instant?? {
        if case .wait(let until) = step { return .some(until) }
        return nil
    }

    @Test func batchesPiledUpAreWrittenAsTheNewestOne() {
        var machine = Machine(durability: .everyBatch, retryDelay: .seconds(1))
        #expect(waitsUntil(machine.next(at: t0)) == .some(nil))
        #expect(machine.offer("a", at: t0) == 1)
        #expect(machine.offer("b", at: t0) == 2)
        let step = machine.next(at: t0)
        #expect(written(step)! == ("b", 2))
        // While it writes, an offer waits for the write.
        _ = machine.offer("c", at: t0)
        #expect(waitsUntil(machine.next(at: t0)) == .some(nil))
        _ = machine.writeSucceeded(2, did: .appendPatch)
        #expect(machine.saved == 2)
        #expect(written(machine.next(at: t0))! == ("c", 3))
    }

    @Test func aGroupedWriteWaitsForItsDeadlineUnlessSomeoneWaits() {
        var machine = Machine(durability: .grouped(.milliseconds(100)), retryDelay: .seconds(1))
        _ = machine.offer("a", at: t0)
        #expect(waitsUntil(machine.next(at: t0 + .milliseconds(10))) == .some(t0 + .milliseconds(100)))
        #expect(written(machine.next(at: t0 + .milliseconds(100)))! == ("a", 1))
        _ = machine.writeSucceeded(1, did: .appendPatch)
        _ = machine.offer("b", at: t0 + .milliseconds(200))
        var resumed = 0
        #expect(machine.wait(for: 2) { _ in resumed += 1 } == nil)
        // A waiter makes it urgent.
        #expect(written(machine.next(at: t0 + .milliseconds(201)))! == ("b", 2))
        let outcome = machine.writeSucceeded(2, did: .appendPatch)
        for resume in outcome.resume { resume(nil) }
        #expect(resumed == 1 && !outcome.recovered)
    }

    @Test func aFailedWriteIsRetriedAfterTheDelayAndResumesItsWaitersWithTheError() {
        var machine = Machine(durability: .everyBatch, retryDelay: .seconds(1))
        _ = machine.offer("a", at: t0)
        var errors: [PersistentStateError?] = []
        _ = machine.wait(for: 1) { errors.append($0) }
        #expect(written(machine.next(at: t0))! == ("a", 1))
        let failure = PersistentStateError.saveFailed(path: "p", reason: "full")
        for resume in machine.writeFailed("a", number: 1, error: failure, at: t0) { resume(failure) }
        #expect(errors.count == 1 && machine.failure != nil)
        #expect(waitsUntil(machine.next(at: t0 + .milliseconds(500))) == .some(t0 + .seconds(1)))
        #expect(written(machine.next(at: t0 + .seconds(1)))! == ("a", 1))
        #expect(machine.writeSucceeded(1, did: .appendPatch).recovered)
        #expect(machine.failure == nil)
    }

    @Test func theLogIsCompactedAfterCompactAfterPatchesAndAgainAfterAFailure() {
        var machine = Machine(durability: .everyBatch, retryDelay: .seconds(1), compactAfter: 3, logged: 1)
        for (index, state) in ["a", "b"].enumerated() {
            _ = machine.offer(state, at: t0)
            #expect(written(machine.next(at: t0)) != nil)
            _ = machine.writeSucceeded(UInt64(index + 1), did: .appendPatch)
        }
        // 1 logged + 2 appended: due, before anything else is written.
        #expect(machine.patchesSinceSnapshot == 3)
        _ = machine.offer("c", at: t0)
        #expect(isCompact(machine.next(at: t0)))
        machine.compacted(false)
        // A failed compaction waits for the next write, even one that
        // appends nothing.
        #expect(written(machine.next(at: t0))! == ("c", 3))
        _ = machine.writeSucceeded(3, did: .nothing)
        #expect(isCompact(machine.next(at: t0)))
        machine.compacted(true)
        #expect(machine.patchesSinceSnapshot == 0)
        #expect(waitsUntil(machine.next(at: t0)) == .some(nil))
    }

    @Test func anUnchangedWriteDeletesTheHistoryRowOnlyAfterTheHistoryChanged() {
        var machine = Machine(durability: .everyBatch, retryDelay: .seconds(1), historyInFile: true)
        // No history made in this process: nothing changes the row.
        #expect(machine.plan(patchIsEmpty: true, generation: 9) == .nothing)
        #expect(machine.plan(patchIsEmpty: false, generation: 9) == .appendPatch)
        machine.historyMade(atLeast: 5)
        #expect(machine.plan(patchIsEmpty: true, generation: 5) == .nothing)
        #expect(machine.plan(patchIsEmpty: true, generation: 6) == .deleteHistoryRow)
        _ = machine.offer("a", at: t0)
        _ = machine.next(at: t0)
        _ = machine.writeSucceeded(1, did: .deleteHistoryRow)
        #expect(!machine.historyInFile)
        #expect(machine.plan(patchIsEmpty: true, generation: 7) == .nothing)
        // Saved again at generation 7; a patch leaves it behind.
        machine.historySaved(generation: 7)
        #expect(machine.plan(patchIsEmpty: true, generation: 7) == .nothing)
        _ = machine.offer("b", at: t0)
        _ = machine.next(at: t0)
        _ = machine.writeSucceeded(2, did: .appendPatch)
        #expect(!machine.historyInFile)
    }

    @Test func jobsRunBeforeWritesAndClosingWritesWhatIsPendingThenStops() {
        var machine = Machine(durability: .grouped(.seconds(60)), retryDelay: .seconds(1))
        _ = machine.offer("a", at: t0)
        var ran = false
        machine.enqueue { ran = true }
        if case .run(let job) = machine.next(at: t0) { job() }
        #expect(ran)
        machine.close()
        // Closing is urgent: no grouping delay.
        #expect(written(machine.next(at: t0))! == ("a", 1))
        _ = machine.writeSucceeded(1, did: .appendPatch)
        #expect(isStop(machine.next(at: t0)))
        #expect(machine.stop().isEmpty && machine.stopped)
    }

    @Test func aWriteThatFailsWhileClosingIsAbandoned() {
        var machine = Machine(durability: .everyBatch, retryDelay: .seconds(1))
        _ = machine.offer("a", at: t0)
        var errors: [PersistentStateError?] = []
        _ = machine.wait(for: 1) { errors.append($0) }
        machine.close()
        #expect(written(machine.next(at: t0)) != nil)
        let failure = PersistentStateError.saveFailed(path: "p", reason: "full")
        for resume in machine.writeFailed("a", number: 1, error: failure, at: t0) { resume(failure) }
        #expect(machine.abandoned)
        #expect(isStop(machine.next(at: t0)))
        #expect(errors.count == 1)
    }
}
