#include "CHeapBytes.h"
#if defined(__linux__)
#include <stdio.h>
#include <unistd.h>
size_t cheapbytes_resident(void) {
    FILE *file = fopen("/proc/self/statm", "r");
    if (!file) return 0;
    unsigned long size = 0, resident = 0;
    int read = fscanf(file, "%lu %lu", &size, &resident);
    fclose(file);
    return read == 2 ? (size_t)resident * (size_t)sysconf(_SC_PAGESIZE) : 0;
}
#else
size_t cheapbytes_resident(void) { return 0; }
#endif
