#include "CFastStore.h"

#if defined(__APPLE__)
#include <pthread.h>
int _cfaststore_is_main_thread(void) { return pthread_main_np() != 0; }
#elif defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
int _cfaststore_is_main_thread(void) { return syscall(SYS_gettid) == getpid(); }
#elif defined(__FreeBSD__) || defined(__OpenBSD__)
#include <pthread.h>
#include <pthread_np.h>
int _cfaststore_is_main_thread(void) { return pthread_main_np() == 1; }
#elif defined(__wasi__) && !defined(_REENTRANT)
// A single-threaded platform: the one thread is the main one.
int _cfaststore_is_main_thread(void) { return 1; }
#else
#error "FastStore: no way to tell the main thread on this platform (MainStore needs one)"
#endif

_Thread_local void *_Nullable _cfaststore_tracking_context CFASTSTORE_TLS_MODEL = 0;

uint64_t _cfaststore_stamp_counter = 0;
uint64_t _cfaststore_node_counter = 0;
uint32_t _cfaststore_registry_counter = 0;
