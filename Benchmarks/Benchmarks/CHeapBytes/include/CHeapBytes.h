#ifndef CHEAPBYTES_H
#define CHEAPBYTES_H
#include <stddef.h>

/// Heap bytes in use (glibc's mallinfo2().uordblks; Darwin's
/// mstats().bytes_used; 0 elsewhere): what HistoryBenchmarks reads before
/// and after recording, for the bytes a history retains per action.
size_t cheapbytes_in_use(void);
#endif
