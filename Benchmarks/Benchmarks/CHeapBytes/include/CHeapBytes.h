#ifndef CHEAPBYTES_H
#define CHEAPBYTES_H
#include <stddef.h>

/// Resident memory of the process, in bytes (Linux: /proc/self/statm;
/// 0 elsewhere): what HistoryBenchmarks reads before and after recording,
/// for the bytes a history retains per action. Resident memory rather than
/// the allocator's counters: package-benchmark's malloc interposer leaves
/// glibc's `mallinfo2` at zero.
size_t cheapbytes_resident(void);
#endif
