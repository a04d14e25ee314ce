import BenchCore
import Foundation
import Synchronization

/// Cumulative allocation requests and bytes of the whole process.
public struct AllocationTotals: Sendable, Equatable {
    public var count: UInt64
    public var bytes: UInt64
    public init(count: UInt64, bytes: UInt64) { self.count = count; self.bytes = bytes }
    public static func - (a: Self, b: Self) -> Self { Self(count: a.count &- b.count, bytes: a.bytes &- b.bytes) }
}

/// Where memory figures come from (jemalloc in `fsbench`).
public protocol MemoryMeter: Sendable {
    /// Allocation requests and bytes requested so far by every thread.
    func allocationTotals() -> AllocationTotals
    /// Bytes currently allocated by the application.
    func liveBytes() -> Int
    /// Folds the calling thread's allocation cache counts into the totals.
    /// A thread other than the reader's must call it after its last
    /// measured allocation (jemalloc merges a thread cache's counts only
    /// when that cache is flushed or its thread exits).
    func flushThreadCache()
}

@inline(__always)
public func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// Runs strategies on workloads and takes the figures.
public enum Driver {
    /// Samples taken even when they overrun the time budget.
    public static let minimumSamples = 5

    /// Dispatches before the measured phase (caches, first-use metadata).
    public static func warmupCount(_ w: Workload) -> Int { max(w.profile.burstSize * w.profile.threads, min(50, w.maxDispatches / 10)) }

    /// Measures `strategy` on `workload`. See docs/benchmarks/README.md for
    /// what each figure means.
    public static func measure(_ strategy: any BenchStrategy.Type, _ workload: Workload, meter: any MemoryMeter) -> CellResult {
        // NB: two functions, so that the measured instance is released
        // before the instance without consumers is built.
        var (result, actionsUsed) = measureRun(strategy, workload, meter: meter)
        result.stateGrowthBytes = stateGrowth(strategy, workload, actions: actionsUsed, meter: meter)
        result.consumerBytes = result.runGrowthBytes - result.stateGrowthBytes
        return result
    }

    /// Live-byte growth of `strategy` on `workload` without consumers, over
    /// the first `actions` actions dispatched in the workload's bursts.
    static func stateGrowth(_ strategy: any BenchStrategy.Type, _ workload: Workload, actions: Int, meter: any MemoryMeter) -> Int {
        let subject = strategy.make(workload)
        let start = meter.liveBytes()
        let burst = workload.profile.burstSize
        var next = 0
        while next + burst <= actions {
            // The same setups as the measured instance's, so that its
            // state goes through the same states.
            if workload.profile.hasSetup { setUp(subject, workload, before: next) }
            for _ in 0..<burst { subject.dispatch(workload.actions[next]); next += 1 }
            subject.waitUntilIdle()
        }
        let end = meter.liveBytes()
        withExtendedLifetime(subject) {}
        return end - start
    }

    /// Dispatches the setup of action `index` and waits for it.
    @inline(__always)
    static func setUp(_ subject: any BenchStrategy, _ workload: Workload, before index: Int) {
        for action in workload.setups[index] { subject.dispatch(action) }
        subject.waitUntilIdle()
    }

    static func measureRun(_ strategy: any BenchStrategy.Type, _ workload: Workload, meter: any MemoryMeter) -> (CellResult, actionsUsed: Int) {
        let setupStart = monotonicNanoseconds()
        let before = meter.liveBytes()
        let subject = strategy.make(workload)
        let withState = meter.liveBytes()
        subject.attachConsumers()
        let afterAttach = subject.delivered
        let setupSeconds = Double(monotonicNanoseconds() - setupStart) / 1e9

        let burst = workload.profile.burstSize
        let warmup = warmupCount(workload)
        // Warm-up: `warmup` dispatches, or a quarter of the time budget when
        // dispatches are slow (at least one burst).
        var next = 0
        let warmupStart = monotonicNanoseconds()
        let warmupLimit = UInt64(workload.seconds * 0.25e9)
        let hasSetup = workload.profile.hasSetup
        // What the setups deliver (warm-up and measured phase), taken out
        // of the totals since attaching.
        var setupDelivered = Sink.Totals.zero
        while next + burst <= warmup {
            if hasSetup {
                let before = subject.delivered
                setUp(subject, workload, before: next)
                setupDelivered = setupDelivered + (subject.delivered - before)
            }
            for _ in 0..<burst { subject.dispatch(workload.actions[next]); next += 1 }
            subject.waitUntilIdle()
            if monotonicNanoseconds() - warmupStart > warmupLimit { break }
        }
        let warm = subject.delivered
        let warmEvaluations = subject.evaluations

        var samples: [Double] = []
        let deadline = Double(workload.seconds)
        let available = workload.actions.count - next
        let allocStart: AllocationTotals
        let allocEnd: AllocationTotals
        let wallNs: UInt64
        var dispatched = 0
        // Callbacks and selector runs of the measured dispatches, when a
        // setup runs between them (otherwise the totals' difference).
        var measuredDelivered: Sink.Totals?
        var measuredEvaluations: Int?

        if hasSetup {
            // NB: the loader allows a setup with the single pattern only.
            // Each measured action follows its setup, dispatched and waited
            // for outside the clock and every count: the allocation totals,
            // callbacks and selector runs are read between the setup and
            // the measured dispatch, and after it. (Reading the allocation
            // totals flushes this thread's allocation cache, so each
            // measured dispatch starts with an empty one.)
            samples.reserveCapacity(available + 1)
            let limitNs = UInt64(deadline * 1e9)
            var allocated = AllocationTotals(count: 0, bytes: 0)
            var delivered = Sink.Totals.zero
            var evaluations = 0
            var measuredNs: UInt64 = 0
            let start = monotonicNanoseconds()
            while next < workload.actions.count {
                let setupBefore = subject.delivered
                setUp(subject, workload, before: next)
                let before = subject.delivered
                setupDelivered = setupDelivered + (before - setupBefore)
                let evaluationsBefore = subject.evaluations
                let a0 = meter.allocationTotals()
                let t0 = monotonicNanoseconds()
                subject.dispatch(workload.actions[next]); next += 1
                subject.waitUntilIdle()
                let t1 = monotonicNanoseconds()
                let a1 = meter.allocationTotals()
                allocated = AllocationTotals(count: allocated.count &+ (a1 - a0).count, bytes: allocated.bytes &+ (a1 - a0).bytes)
                delivered = delivered + (subject.delivered - before)
                evaluations += subject.evaluations - evaluationsBefore
                measuredNs += t1 - t0
                samples.append(Double(t1 - t0))
                dispatched += 1
                if t1 - start > limitNs, samples.count >= minimumSamples { break }
            }
            // The wall clock of the measured dispatches alone (mean and
            // throughput leave the setups out).
            wallNs = measuredNs
            allocStart = AllocationTotals(count: 0, bytes: 0)
            allocEnd = allocated
            measuredDelivered = delivered
            measuredEvaluations = evaluations
        } else if workload.profile.pattern == .threads {
            let threads = workload.profile.threads
            let perThread = available / threads / burst * burst
            let result = runThreads(
                subject, workload, first: next, perThread: perThread, threads: threads, burst: burst, deadline: deadline,
                meter: meter, servicingMainQueue: strategy.drainsOnMainThread)
            samples = result.samples
            allocStart = result.allocStart
            allocEnd = result.allocEnd
            wallNs = result.wallNs
            dispatched = result.dispatched
        } else {
            samples.reserveCapacity(available / burst + 1)
            let limitNs = UInt64(deadline * 1e9)
            allocStart = meter.allocationTotals()
            let start = monotonicNanoseconds()
            var now = start
            while next + burst <= workload.actions.count {
                let t0 = now
                for _ in 0..<burst { subject.dispatch(workload.actions[next]); next += 1 }
                subject.waitUntilIdle()
                now = monotonicNanoseconds()
                samples.append(Double(now - t0) / Double(burst))
                dispatched += burst
                if now - start > limitNs, samples.count >= minimumSamples { break }
            }
            wallNs = now - start
            allocEnd = meter.allocationTotals()
        }
        // Actions dispatched in all (warm-up included): in the threads
        // pattern each thread has its own stripe, so count them.
        let actionsUsed = workload.profile.pattern == .threads ? next + dispatched : next
        subject.waitUntilIdle()
        let end = subject.delivered
        let afterRun = meter.liveBytes()

        samples.sort()
        let median = samples.isEmpty ? 0 : samples[samples.count / 2]
        let p99 = samples.isEmpty ? 0 : samples[min(samples.count - 1, Int((Double(samples.count) * 0.99).rounded(.up)) - 1)]
        let alloc = allocEnd - allocStart
        let n = Double(max(dispatched, 1))
        let measured = measuredDelivered ?? (end - warm)
        let result = CellResult(
            profile: workload.profile.name, strategy: strategy.name,
            entities: workload.entities, consumers: workload.selections.count,
            pattern: workload.profile.pattern.rawValue,
            dispatches: dispatched, medianNs: median, p99Ns: p99,
            throughput: Double(dispatched) / (Double(wallNs) / 1e9),
            allocationsPerDispatch: Double(alloc.count) / n,
            bytesPerDispatch: Double(alloc.bytes) / n,
            stateBytes: withState - before,
            consumerBytes: afterRun - withState,
            runGrowthBytes: afterRun - withState,
            stateGrowthBytes: 0,
            callbacksPerDispatch: Double(measured.callbacks) / n,
            evaluationsPerDispatch: Double(measuredEvaluations ?? (subject.evaluations - warmEvaluations)) / n,
            callbacks: end.callbacks - afterAttach.callbacks - setupDelivered.callbacks,
            checksum: end.checksum &- setupDelivered.checksum,
            measuredCallbacks: measured.callbacks,
            setupSeconds: setupSeconds)
        withExtendedLifetime(subject) {}
        return (result, actionsUsed)
    }

    struct ThreadRun {
        var samples: [Double]
        var allocStart: AllocationTotals
        var allocEnd: AllocationTotals
        var wallNs: UInt64
        var dispatched: Int
    }

    /// `threads` threads, each dispatching bursts from its own stripe of the
    /// actions, released together; allocation totals are read around the
    /// whole phase (all threads).
    static func runThreads(
        _ subject: any BenchStrategy, _ workload: Workload, first: Int, perThread: Int, threads: Int, burst: Int, deadline: Double,
        meter: any MemoryMeter, servicingMainQueue: Bool
    ) -> ThreadRun {
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        // One preallocated slot per thread: storing into it does not allocate
        // before the closing allocation totals are read.
        let collected = Mutex<([[Double]], [Int])>((Array(repeating: [], count: threads), Array(repeating: 0, count: threads)))
        let limitNs = UInt64(deadline * 1e9)
        let actions = workload.actions
        let clock = Mutex<(start: UInt64, end: UInt64, allocStart: AllocationTotals, allocEnd: AllocationTotals)>((0, 0, .init(count: 0, bytes: 0), .init(count: 0, bytes: 0)))
        let finished = DispatchGroup()
        for _ in 0..<threads { finished.enter() }
        // The coordinator: releases the workers together, reads the totals
        // around the phase once they have all flushed their caches.
        let coordinator = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for _ in 0..<threads { ready.wait() }
            let allocStart = meter.allocationTotals()
            let start = monotonicNanoseconds()
            for _ in 0..<threads { go.signal() }
            finished.wait()
            let end = monotonicNanoseconds()
            let allocEnd = meter.allocationTotals()
            clock.withLock { $0 = (start, end, allocStart, allocEnd) }
            coordinator.signal()
        }
        let work: @Sendable (Int) -> Void = { t in
            var local: [Double] = []
            local.reserveCapacity(perThread / burst + 1)
            var count = 0
            meter.flushThreadCache()
            ready.signal()
            go.wait()
            let start = monotonicNanoseconds()
            var now = start
            var i = first + t * perThread
            let end = i + perThread
            while i + burst <= end {
                let t0 = now
                for _ in 0..<burst { subject.dispatch(actions[i]); i += 1 }
                subject.waitUntilIdle()
                now = monotonicNanoseconds()
                local.append(Double(now - t0) / Double(burst))
                count += burst
                if now - start > limitNs, local.count >= minimumSamples { break }
            }
            meter.flushThreadCache()
            finished.leave()
            collected.withLock { $0.0[t] = local; $0.1[t] = count }
        }
        if servicingMainQueue {
            // NB: the store drains on the main thread (this one): the
            // workers are started and joined from another thread, and
            // meanwhile this one runs the main run loop, which drains the
            // main queue, where their dispatches schedule the store's
            // drains (as an app's main thread does).
            let joined = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                runOnThreads(threads, work)
                joined.signal()
            }
            while joined.wait(timeout: .now()) == .timedOut {
                _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01))
            }
        } else {
            runOnThreads(threads, work)
        }
        coordinator.wait()
        let (start, end, allocStart, allocEnd) = clock.withLock { $0 }
        let wall = end - start
        let (perThreadSamples, counts) = collected.withLock { $0 }
        return ThreadRun(samples: perThreadSamples.flatMap { $0 }, allocStart: allocStart, allocEnd: allocEnd, wallNs: wall, dispatched: counts.reduce(0, +))
    }
}
