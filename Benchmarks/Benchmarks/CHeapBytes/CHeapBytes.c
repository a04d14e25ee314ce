#include "CHeapBytes.h"
#if defined(__GLIBC__)
#include <malloc.h>
size_t cheapbytes_in_use(void) { return mallinfo2().uordblks; }
#elif defined(__APPLE__)
#include <malloc/malloc.h>
size_t cheapbytes_in_use(void) { return mstats().bytes_used; }
#else
size_t cheapbytes_in_use(void) { return 0; }
#endif
