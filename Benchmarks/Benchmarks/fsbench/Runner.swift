import BenchCLI
import BenchCore
import Foundation
import JemallocMeter
import StrategyKit

/// Measures with the strategies of StrategyKit and jemalloc's counters.
struct Runner: Measuring {
    var seed: UInt64 { Workload.seed }

    /// The meter, once jemalloc is known to serve this process.
    func meter() -> JemallocMeter {
        guard JemallocMeter.isActive else {
            FSBenchTool.fail("jemalloc does not serve this process's allocations (or has no statistics); the memory figures would be wrong", status: 1)
        }
        return JemallocMeter()
    }

    func strategies(_ plan: RunPlan) -> [any BenchStrategy.Type] {
        plan.strategies.map { name in
            guard let strategy = Strategies.named(name) else {
                FSBenchTool.fail("strategy '\(name)' is in the catalog but not in this build's StrategyKit")
            }
            return strategy
        }
    }

    func selfTest(_ plan: RunPlan) -> Bool {
        SelfTest.run(meter: meter(), profiles: plan.profiles)
    }

    func measure(_ plan: RunPlan) -> (results: [CellResult], seconds: Double) {
        #if DEBUG
        FSBenchTool.fail("fsbench must be built in release (swift build -c release --product fsbench): a debug build times its own checks, not FastStore")
        #else
        let meter = meter()
        let strategies = strategies(plan)
        let totalCells = plan.cells.count * strategies.count
        let isTTY = isatty(2) == 1 && plan.progress
        func progress(_ text: String, final: Bool) {
            guard plan.progress else { return }
            if isTTY {
                FileHandle.standardError.write(Data("\r\u{1B}[K\(text)\(final ? "\n" : "")".utf8))
            } else if final {
                FileHandle.standardError.write(Data("\(text)\n".utf8))
            }
        }

        FileHandle.standardError.write(Data("fsbench: \(plan.profiles.count) profile(s), \(strategies.count) strategies, \(totalCells) runs\(plan.quick ? " (quick)" : "")\n".utf8))
        let runStart = monotonicNanoseconds()
        var results: [CellResult] = []
        var index = 0
        for cell in plan.cells {
            let p = cell.profile
            let maxDispatches = plan.quick ? p.quickMaxDispatches : p.maxDispatches
            let seconds = plan.seconds ?? (plan.quick ? p.quickSeconds : p.seconds)
            let probe = Workload(profile: p, entities: cell.entities, maxDispatches: maxDispatches, seconds: seconds, warmup: 0)
            let warmup = Driver.warmupCount(probe)
            let workload = Workload(profile: p, entities: cell.entities, maxDispatches: maxDispatches, seconds: seconds, warmup: warmup)
            for strategy in strategies {
                index += 1
                let elapsed = Double(monotonicNanoseconds() - runStart) / 1e9
                let label = String(format: "[%2d/%d %4.0fs] %@ N=%@ %@", index, totalCells, elapsed, p.name, Format.grouped(cell.entities), strategy.name)
                progress("\(label) …", final: false)
                let result = Driver.measure(strategy, workload, meter: meter)
                results.append(result)
                progress("\(label): median \(Format.duration(result.medianNs)), p99 \(Format.duration(result.p99Ns)), \(Format.count(result.allocationsPerDispatch)) allocs/dispatch, \(result.dispatches) dispatches", final: true)
            }
        }
        return (results, Double(monotonicNanoseconds() - runStart) / 1e9)
        #endif
    }
}
