// jemalloc for the benchmarks memory figures only (mallctl: epoch,
// stats.allocated, thread.allocatedp). Install: apt-get install libjemalloc-dev
#include <jemalloc/jemalloc.h>
