// C support for FastStore: what Swift cannot spell. No API of its own:
// FastStore's internals call these, nothing else should.

#ifndef CFASTSTORE_H
#define CFASTSTORE_H

// The calling thread's tracking context (FastStore's `_TrackingContext`,
// retained by the thread's pthread key, which releases it at thread exit),
// or NULL before the thread made one.
//
// A C thread-local rather than `pthread_getspecific` behind a lazily made
// key: every versioned read and write reads it, and this is one load
// (`%fs`-relative on Linux) where the key cost a `swift_once` check, an
// accessor call and a library call.
#if defined(__linux__)
#define CFASTSTORE_TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define CFASTSTORE_TLS_MODEL
#endif

extern _Thread_local void *_Nullable _cfaststore_tracking_context CFASTSTORE_TLS_MODEL;

static inline __attribute__((always_inline)) void *_Nullable _cfaststore_tracking_context_get(void) {
    return _cfaststore_tracking_context;
}

static inline __attribute__((always_inline)) void _cfaststore_tracking_context_set(void *_Nullable context) {
    _cfaststore_tracking_context = context;
}

#endif
