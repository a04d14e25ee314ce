import BenchCLI

// fsbench-lite: fsbench's command line without the strategies or jemalloc,
// so that a debug build of a few seconds answers --help, --list and
// --validate (scripts/bench.sh builds it for those). Measuring and
// --self-test need the release `fsbench`.
FSBenchTool.main(measuring: nil)
