import BenchCLI
import BenchCore
import Foundation
import StrategyKit

// fsbench: the strategy comparison runner. See docs/benchmarks/README.md;
// scripts/bench.sh builds and runs it. The command line, the checks before
// measuring and the reports are BenchCLI's; this executable adds the
// strategies (StrategyKit) and jemalloc's counters.
FSBenchTool.main(measuring: Runner())
