#include "CFastStore.h"

#if defined(__APPLE__)
#include <pthread.h>
int _cfaststore_is_main_thread(void) { return pthread_main_np() != 0; }
#elif defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
int _cfaststore_is_main_thread(void) { return syscall(SYS_gettid) == getpid(); }
#else
// No way to tell: every thread is taken for the main one (a platform
// without threads, where FastStore's stores drain where they are called).
int _cfaststore_is_main_thread(void) { return 1; }
#endif

_Thread_local void *_Nullable _cfaststore_tracking_context CFASTSTORE_TLS_MODEL = 0;

uint64_t _cfaststore_stamp_counter = 0;
uint64_t _cfaststore_node_counter = 0;
uint32_t _cfaststore_registry_counter = 0;
