import Benchmark
import SuiteSupport
import FastStore

// Each benchmark measures from the `dispatch` call until the action is reduced
// and every subscriber is notified: on one thread with no drain running,
// `dispatch` drains synchronously, so that is the time of the call.
//
// Names have no spaces (package-benchmark's threshold files break on them).

enum CounterAction: Sendable { case increment }

@inline(never)
func counterReducer(_ state: inout Int, _ action: CounterAction) {
    state &+= 1
}

let mallocMetrics: [BenchmarkMetric] = [.wallClock, .mallocCountTotal, .throughput]

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: mallocMetrics,
        warmupIterations: 1_000,
        scalingFactor: .kilo,
        maxDuration: suiteMaxDuration(.seconds(1)),
        maxIterations: 1_000_000,
        thresholds: allocationCountGate
    )

    // One dispatch to a counter, no subscriber. Reported per dispatch
    // (scalingFactor .kilo: 1,000 dispatches per measured iteration).
    Benchmark("Store.dispatch.counter.noSubscriber") { benchmark in
        let store = Store<Int, CounterAction>(state: 0, reducer: counterReducer)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { store.dispatch(.increment) }
        benchmark.stopMeasurement()
        precondition(store.state == benchmark.scaledIterations.count)
    }

    // One dispatch to a counter, one subscriber.
    Benchmark("Store.dispatch.counter.oneSubscriber") { benchmark in
        let store = Store<Int, CounterAction>(state: 0, reducer: counterReducer)
        var last = 0
        let token = store.subscribe { last = $0 }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { store.dispatch(.increment) }
        benchmark.stopMeasurement()
        precondition(last == benchmark.scaledIterations.count)
        token.cancel()
    }

    // A burst of 1,000 actions queued together, reduced as one batch, one
    // notification. Reported per action (1,000 actions per scaled iteration).
    Benchmark("Store.dispatch.burst1000.oneSubscriber") { benchmark in
        let store = Store<Int, CounterAction>(state: 0, reducer: counterReducer)
        var notifications = 0
        let token = store.subscribe { _ in notifications += 1 }
        let burst = [CounterAction](repeating: .increment, count: benchmark.scaledIterations.count)
        store.dispatch(contentsOf: burst)  // warm: grows the queue buffers once
        benchmark.startMeasurement()
        store.dispatch(contentsOf: burst)
        benchmark.stopMeasurement()
        precondition(store.state == 2 * burst.count && notifications == 2)
        token.cancel()
    }
}
